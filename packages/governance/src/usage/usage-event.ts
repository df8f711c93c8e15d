import type { DependencyHealth, GateGuardrailHit } from "@conduit-ai/server-core";
/** One finished request, as the durable history keeps it. */
export interface UsageEvent {
  /** Unique per request: a retried write of the same event is counted once. */
  id: string;
  /** ISO time the request finished. */
  time: string;
  key: string;
  team?: string;
  user?: string;
  model: string;
  target?: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Every token written to the prompt cache (5-minute and 1-hour). */
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written for 1 hour. */
  cacheWrite1hTokens?: number;
  /** Of `outputTokens`, those spent reasoning. */
  reasoningTokens?: number;
  /** Web searches the vendor ran (priced per use). */
  webSearchRequests?: number;
  costUsd: number;
  /**
   * Dollars saved: by prompt-cache reads against the full input price, or — answered from the
   * response cache (no tokens, $0) — what the stored answer cost when upstream made it.
   */
  savedUsd?: number;
  status: number;
  latencyMs: number;
  /** `tool`: a call through the MCP gateway (`model` is then `<server>__<tool>`, no tokens); absent: a model call. */
  kind?: "model" | "tool";
  /** A tool call's MCP server and its tool's own name; never its arguments or result. */
  server?: string;
  tool?: string;
  /**
   * The figures are the call's reservation, not upstream's report: its process was lost before
   * it settled (status 499, charged by the lost-call sweeper), or its client left before upstream
   * reported usage (`GateAdmission.settleAtReservation`).
   */
  estimated?: boolean;
  /** The call's guardrail hits (name, action, direction, entity type); never the matched text. */
  guardrails?: GateGuardrailHit[];
}

export type UsageGroupBy = "key" | "team" | "user" | "model" | "day";

export interface UsageQuery {
  groupBy: UsageGroupBy;
  from: Date;
  to: Date;
}

/** One row of `GET /admin/usage`. */
export interface UsageRow {
  group: string;
  name?: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** `cacheRead / (input + cacheRead + cacheWrite)`: the share of input tokens the prompt cache served (0 without input). */
  cacheHitRatio: number;
  /** Dollars the cache reads saved against the full input price. */
  savedUsd: number;
  /** Of `requests`, those charged at their reservation: their process was lost, or their client left before usage was reported (`UsageEvent.estimated`). */
  estimatedRequests: number;
}

/** Model calls of one UTC day served by one target (`UsageEvent.target`, else its model). */
export interface DailyUsageRow {
  day: string;
  /** `anthropic/<model>`, `runtime/<provider>/<model>`, `<provider>/<model>`; the model when the event named no target. */
  target: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

/** Where usage events go: memory (lost on restart) or PostgreSQL (durable, batched). */
export interface UsageSink {
  readonly kind: "memory" | "postgres";
  /** Never blocks the request: buffered, written later. */
  append(event: UsageEvent): void;
  /**
   * Writes these events now, each id at most once however often it comes (a durable history:
   * the drain of the Redis outbox calls it). Resolves once they are committed; rejects when they
   * cannot be (they stay in the outbox). A sink without it gets events through `append`.
   */
  write?(events: UsageEvent[]): Promise<void>;
  query(query: UsageQuery): Promise<UsageRow[]>;
  /** Model calls within `[from, to)` summed per UTC day × what served them (what reconciliation compares with a vendor's report). */
  dailyUsage?(range: { from: Date; to: Date }): Promise<DailyUsageRow[]>;
  /** Writes what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  /**
   * The store's health entry for `/api/health/detailed` and the console (never required: usage
   * is buffered while it is down), with `details.bufferedEvents`. Sinks with nothing to reach leave it out.
   */
  health?(): Promise<DependencyHealth>;
  close(): Promise<void>;
}

/** The group an event belongs to. */
export function groupOf(event: UsageEvent, groupBy: UsageGroupBy): string {
  if (groupBy === "day") return event.time.slice(0, 10);
  if (groupBy === "key") return event.key;
  if (groupBy === "model") return event.model;
  return (groupBy === "team" ? event.team : event.user) ?? "";
}

/**
 * The share of input tokens the prompt cache served, from a row's sums (rounded to 6 decimals).
 *
 * @example
 * cacheHitRatio({ inputTokens: 100, cacheReadTokens: 900, cacheWriteTokens: 0 }); // 0.9
 */
export function cacheHitRatio(row: Pick<UsageRow, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): number {
  const all = row.inputTokens + row.cacheReadTokens + row.cacheWriteTokens;
  return all > 0 ? Math.round((row.cacheReadTokens / all) * 1e6) / 1e6 : 0;
}
