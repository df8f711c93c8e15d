import type { RouteGroup } from "../contracts/route.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import { VERSION } from "../version.js";
import { type HealthSource, checkReadiness, processUptimeSeconds } from "./health-status.js";

/**
 * The health group: `/health`, `/health/live`, `/health/ready` (503 while draining or
 * when a required dependency is down) and `/health/detailed`.
 *
 * @example
 * adapter.registerRouteGroup(createHealthRoutes(adapter));
 */
export function createHealthRoutes(source: HealthSource): RouteGroup {
  return {
    prefix: "/health",
    tags: ["health"],
    routes: [
      {
        method: "GET",
        path: "/",
        summary: "Basic health",
        handler: () => ({ status: "ok", uptime: processUptimeSeconds(), version: VERSION }),
      },
      { method: "GET", path: "/live", summary: "Liveness", handler: () => ({ status: "alive", uptime: processUptimeSeconds() }) },
      {
        method: "GET",
        path: "/ready",
        summary: "Readiness",
        handler: async () => {
          const readiness = await checkReadiness(source);
          if (!readiness.ready) {
            throw new ServerAdapterError("Service not ready", {
              code: "SERVICE_UNAVAILABLE",
              statusCode: 503,
              retryable: true,
              details: { state: readiness.state, dependencies: readiness.dependencies },
            });
          }
          return { status: "ready", state: readiness.state, dependencies: readiness.dependencies };
        },
      },
      {
        method: "GET",
        path: "/detailed",
        summary: "Health with service status",
        handler: async () => {
          const readiness = await checkReadiness(source);
          const memory = process.memoryUsage();
          return {
            status: readiness.ready ? "ok" : "degraded",
            version: VERSION,
            uptime: processUptimeSeconds(),
            state: readiness.state,
            activeConnections: source.getActiveConnectionCount(),
            dependencies: readiness.dependencies,
            process: { pid: process.pid, node: process.version, rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
          };
        },
      },
    ],
  };
}

