import type { ServerAdapter } from "../contracts/adapter.js";
import type { RegisteredRoute, RouteDefinition, RouteGroup } from "../contracts/route.js";
import type { Runtime } from "../contracts/runtime.js";
import type { OpenAPIGeneratorConfig } from "../openapi/generate-openapi.js";
import { createAgentRoutes } from "./agent-routes.js";
import { createDocsRoutes } from "./docs-routes.js";
import { type HealthRoutesOptions, createHealthRoutes } from "./health-routes.js";
import type { HealthSource } from "./health-status.js";
import { createMcpRoutes } from "./mcp-routes.js";
import { createMemoryRoutes } from "./memory-routes.js";
import { createToolRoutes } from "./tool-routes.js";

/** Options of `createAllRoutes` / `registerAllRoutes` (SPEC "Endpoints"). */
export interface AllRoutesOptions {
  /** Mounts the docs group (`/docs`, `/docs/openapi.json`, `/docs/openapi.yaml`). Default false. */
  enableSwagger?: boolean;
  /** The routes the OpenAPI document describes; `registerAllRoutes` binds it to `adapter.listRoutes`. */
  getRoutes?: () => Array<RouteDefinition | RegisteredRoute>;
  /** Accepted now, mounted by the proxy package (`/v1/messages`, `/v1/chat/completions`, `/limits`, `/accounts`). */
  proxy?: boolean;
  /** Legacy flag for the messages surface only; accepted, mounted by the proxy package. */
  claudeProxy?: boolean;
  /** Legacy flag for the chat-completions surface only; accepted, mounted by the proxy package. */
  openaiProxy?: boolean;
  /** Where readiness comes from; defaults to the runtime alone, reported as running. */
  health?: HealthSource;
  /** Who sees process details in `/health/detailed` (`registerAllRoutes`: `config.health.processDetails`). */
  processDetails?: HealthRoutesOptions["processDetails"];
  /** Title, servers, security schemes... of the generated document. */
  openapi?: OpenAPIGeneratorConfig;
}

/**
 * Every built-in route group over a runtime: agent, tools, mcp, memory, health and,
 * with `enableSwagger`, docs. Metrics are not a group: the adapter mounts `/metrics`
 * itself when `config.enableMetrics` is true (it needs the server's own registry).
 *
 * @example
 * for (const group of createAllRoutes(runtime, "/api", { enableSwagger: true, getRoutes: () => adapter.listRoutes() })) {
 *   adapter.registerRouteGroup(group);
 * }
 */
export function createAllRoutes(runtime: Runtime | undefined, basePath = "/api", options: AllRoutesOptions = {}): RouteGroup[] {
  const health: HealthSource = options.health ?? {
    runtime,
    getLifecycleState: () => "running",
    getActiveConnectionCount: () => 0,
  };
  const groups = [createAgentRoutes(runtime), createToolRoutes(runtime), createMcpRoutes(runtime), createMemoryRoutes(runtime), createHealthRoutes(health, options.processDetails ? { processDetails: options.processDetails } : {})];
  if (options.enableSwagger) {
    const getRoutes = options.getRoutes ?? (() => groups.flatMap((group) => group.routes.map((route) => ({ ...route, path: `${group.prefix}${route.path}` }))));
    groups.push(createDocsRoutes({ getRoutes, basePath, ...(options.openapi ? { openapi: options.openapi } : {}) }));
  }
  return groups;
}

/**
 * Registers every group of `createAllRoutes` on an adapter, over `adapter.runtime`, with
 * the adapter as health source and `adapter.listRoutes` as the document's route list
 * (so routes registered later, user routes included, are documented too).
 * `enableSwagger` defaults to the adapter's `config.enableSwagger`.
 *
 * @example
 * const server = await createServer(runtime, { config: { enableSwagger: true } });
 * registerAllRoutes(server);
 * await server.start(); // GET /api/tools, /api/docs/openapi.json, ...
 */
export function registerAllRoutes(
  adapter: ServerAdapter & { readonly runtime: Runtime | undefined },
  basePath?: string,
  options: AllRoutesOptions = {},
): RouteGroup[] {
  const config = adapter.getConfig();
  const groups = createAllRoutes(adapter.runtime, basePath ?? config.basePath, {
    ...options,
    enableSwagger: options.enableSwagger ?? config.enableSwagger,
    getRoutes: options.getRoutes ?? (() => adapter.listRoutes()),
    health: options.health ?? adapter,
    processDetails: options.processDetails ?? config.health.processDetails,
  });
  for (const group of groups) adapter.registerRouteGroup(group);
  return groups;
}
