import type { RouteGroup } from "../contracts/route.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import { VERSION } from "../version.js";
import { type HealthSource, checkReadiness, processUptimeSeconds } from "./health-status.js";

/**
 * The health group: `/health`, `/health/live`, `/health/ready` (503 while draining or
 * when a required dependency is down) and `/health/detailed` (process details only for an
 * authenticated request unless `processDetails` says otherwise).
 *
 * @example
 * adapter.registerRouteGroup(createHealthRoutes(adapter));
 */
export interface HealthRoutesOptions {
  /**
   * Process details (pid, Node version, memory) in `/health/detailed`: only for a request with
   * an authenticated user (default), always, or never. Readiness and dependencies are always shown.
   */
  processDetails?: "authenticated" | "always" | "never";
}

export function createHealthRoutes(source: HealthSource, options: HealthRoutesOptions = {}): RouteGroup {
  const processDetails = options.processDetails ?? "authenticated";
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
        description:
          "Process details (pid, Node version, memory) are included only for an authenticated request by default (`config.health.processDetails`).",
        handler: async (ctx) => {
          const readiness = await checkReadiness(source);
          const details = {
            status: readiness.ready ? "ok" : "degraded",
            version: VERSION,
            uptime: processUptimeSeconds(),
            state: readiness.state,
            activeConnections: source.getActiveConnectionCount(),
            dependencies: readiness.dependencies,
          };
          // What helps an attacker fingerprint the host stays behind auth (or off) unless asked for.
          const showProcess = processDetails === "always" || (processDetails === "authenticated" && ctx.user !== undefined);
          if (!showProcess) return details;
          const memory = process.memoryUsage();
          return { ...details, process: { pid: process.pid, node: process.version, rssBytes: memory.rss, heapUsedBytes: memory.heapUsed } };
        },
      },
    ],
  };
}
