import type { MetricsRegistry } from "@conduit-ai/server-core/metrics";
import type { GuardrailHit } from "./match-rules.js";

/**
 * `conduit_guardrail_hits_total{guardrail, action, direction}` in the server's registry
 * (`/api/metrics`): labels are configured names and fixed words, never content.
 *
 * @example
 * guardrails.onHit(guardrailMetrics(getServerMetrics(server).registry));
 */
export function guardrailMetrics(registry: MetricsRegistry): (hit: GuardrailHit) => void {
  const hits = registry.counter({
    name: "conduit_guardrail_hits_total",
    help: "Guardrail hits, by guardrail, action and direction",
    labelNames: ["guardrail", "action", "direction"] as const,
  });
  return (hit) => hits.inc({ guardrail: hit.guardrail, action: hit.action, direction: hit.direction });
}
