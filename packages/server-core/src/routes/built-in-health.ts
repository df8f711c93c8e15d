import type { RouteDefinition } from "../contracts/route.js";
import { rawResponse } from "../core/pipeline/raw-response.js";
import { VERSION } from "../version.js";
import { type HealthSource, checkReadiness, processUptimeSeconds } from "./health-status.js";

const json = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/**
 * Absolute `/health` and `/ready` for load balancers and orchestrators: plain JSON
 * (no envelope), 503 from `/ready` while draining or when a required dependency is down.
 */
export function builtInHealthRoutes(source: HealthSource): RouteDefinition[] {
  return [
    {
      method: "GET",
      path: "/health",
      absolute: true,
      tags: ["health"],
      summary: "Liveness probe (built in)",
      handler: () => rawResponse(JSON.stringify({ status: "ok", uptime: processUptimeSeconds(), version: VERSION }), { headers: json }),
    },
    {
      method: "GET",
      path: "/ready",
      absolute: true,
      tags: ["health"],
      summary: "Readiness probe (built in)",
      handler: async () => {
        const readiness = await checkReadiness(source);
        const body = { status: readiness.ready ? "ready" : "not_ready", state: readiness.state, dependencies: readiness.dependencies };
        return rawResponse(JSON.stringify(body), { status: readiness.ready ? 200 : 503, headers: json });
      },
    },
  ];
}
