import type { IncomingHeaders } from "../contracts/context.js";
import { defineRoute, type RouteDefinition } from "../contracts/route.js";
import { rawResponse } from "../core/pipeline/raw-response.js";
import { documentRawResponse } from "../openapi/raw-route.js";
import { metricsForScope, metricsScopeOf } from "./metrics-access.js";
import { formatPrometheusText } from "./prometheus-text.js";
import type { ServerMetrics } from "./server-metrics.js";

function wantsJson(headers: IncomingHeaders): boolean {
  const accept = headers.accept;
  const value = Array.isArray(accept) ? accept.join(",") : (accept ?? "");
  return value.includes("application/json");
}

/**
 * `GET /metrics` (under `basePath`): Prometheus text exposition, or the same metrics as JSON
 * form with `Accept: application/json`. Sent raw, never in the success envelope. What a caller
 * may read is decided before (`createMetricsAccessMiddleware`).
 *
 * @example
 * adapter.registerRoute(createMetricsRoute(metrics)); // GET /api/metrics
 */
export function createMetricsRoute(metrics: ServerMetrics): RouteDefinition {
  return documentRawResponse(
    defineRoute({
      method: "GET",
      path: "/metrics",
      summary: "Prometheus metrics (JSON with Accept: application/json)",
      tags: ["metrics"],
      handler: async (ctx) => {
        // The access guard (metrics-access.ts) left the scope: a public scrape never sees the governance series.
        const scope = metricsScopeOf(ctx);
        if (wantsJson(ctx.headers)) {
          const body = JSON.stringify(metricsForScope(await metrics.registry.getMetricsAsJSON(), scope));
          return rawResponse(body, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
        }
        const body =
          scope === "all"
            ? await metrics.registry.metrics()
            : formatPrometheusText(metricsForScope(await metrics.registry.getMetricsAsJSON(), scope));
        return rawResponse(body, { headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" } });
      },
    }),
    { contentTypes: ["text/plain", "application/json"], description: "Prometheus text exposition format, or JSON" },
  );
}
