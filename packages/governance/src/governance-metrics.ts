import type { MetricsRegistry } from "@conduit-ai/server-core/metrics";
import type { UsageEvent } from "./usage/usage-event.js";

/**
 * Per-team figures in the server's registry (`/api/metrics`): requests, tokens, spend, cache reads and their savings labelled
 * `team` ("none" for keys without one). Per key only when opted in (`keys.metricsPerKey`), so
 * cardinality stays bounded by the number of teams. Never a secret: ids only.
 *
 * @example
 * const record = governanceMetrics(getServerMetrics(server).registry, false);
 * record(event);
 */
export function governanceMetrics(registry: MetricsRegistry, perKey: boolean): (event: UsageEvent) => void {
  const labelNames = perKey ? (["team", "key"] as const) : (["team"] as const);
  const requests = registry.counter({
    name: "conduit_governance_requests_total",
    help: "Requests admitted and settled, by team",
    labelNames,
  });
  const tokens = registry.counter({
    name: "conduit_governance_tokens_total",
    help: "Tokens used, by team and kind",
    labelNames: [...labelNames, "kind"] as const,
  });
  const spend = registry.counter({ name: "conduit_governance_spend_usd_total", help: "Spend in USD, by team", labelNames });
  const cacheRead = registry.counter({
    name: "conduit_cache_read_tokens_total",
    help: "Input tokens served from the vendor's prompt cache, by team",
    labelNames,
  });
  const cacheSaved = registry.counter({
    name: "conduit_cache_saved_usd_total",
    help: "USD the prompt cache's reads saved against the full input price, by team",
    labelNames,
  });
  return (event) => {
    const labels: Record<string, string> = { team: event.team ?? "none", ...(perKey ? { key: event.key } : {}) };
    requests.inc(labels as never);
    for (const [kind, count] of [
      ["input", event.inputTokens],
      ["output", event.outputTokens],
      ["cache_read", event.cacheReadTokens],
      ["cache_write", event.cacheWriteTokens],
    ] as const) {
      if (count > 0) tokens.inc({ ...labels, kind } as never, count);
    }
    if (event.costUsd > 0) spend.inc(labels as never, event.costUsd);
    if (event.cacheReadTokens > 0) cacheRead.inc(labels as never, event.cacheReadTokens);
    if ((event.savedUsd ?? 0) > 0) cacheSaved.inc(labels as never, event.savedUsd as number);
  };
}
