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

/** Options of `createAllRoutes` / `registerAllRoutes` (docs/spec.md "Endpoints"). */
export interface AllRoutesOptions {
  /**
   * The runtime the agent, tools, mcp and memory groups call (`registerAllRoutes` uses the
   * adapter's). Without one those routes stay mounted and answer 503 `RUNTIME_UNAVAILABLE`.
   */
  runtime?: Runtime;
  /** Mounts the docs group (`/docs`, `/docs/openapi.json`, `/docs/openapi.yaml`). Default false. */
  enableSwagger?: boolean;
  /** The routes the OpenAPI document describes; `registerAllRoutes` binds it to `adapter.listRoutes`. */
  getRoutes?: () => Array<RouteDefinition | RegisteredRoute>;
  /**
   * Both proxy surfaces (`/v1/messages`, `/limits`, `/accounts`, `/v1/chat/completions`).
   * The routes come from `@conduit-ai/proxy`: pass its instance (`proxy: createProxy(config)`),
   * or `true` together with `proxyRoutes`. A flag without a provider throws.
   */
  proxy?: boolean | ProxyRoutesProvider;
  /** Legacy flag: the messages surface only (`/v1/messages`, `/limits`, `/accounts`). */
  claudeProxy?: boolean | ProxyRoutesProvider;
  /** Legacy flag: the chat-completions surface only (`/v1/chat/completions`). */
  openaiProxy?: boolean | ProxyRoutesProvider;
  /** Who builds the proxy routes when the flags above are plain booleans. */
  proxyRoutes?: ProxyRoutesProvider;
  /** Where readiness comes from; defaults to the runtime alone, reported as running. */
  health?: HealthSource;
  /** Who sees process details in `/health/detailed` (`registerAllRoutes`: `config.health.processDetails`). */
  processDetails?: HealthRoutesOptions["processDetails"];
  /** Title, servers, security schemes... of the generated document. */
  openapi?: OpenAPIGeneratorConfig;
}

/** Which proxy surfaces a route-group helper asks for. */
export interface ProxySurfaces {
  /** `POST /v1/messages`, `GET /limits`, `GET /accounts`. */
  messages: boolean;
  /** `POST /v1/chat/completions`. */
  chatCompletions: boolean;
}

/**
 * What `@conduit-ai/proxy`'s instance provides so the route-group helpers can mount it;
 * server-core never depends on the proxy package itself.
 */
export interface ProxyRoutesProvider {
  createProxyRoutes(surfaces: ProxySurfaces): RouteGroup[];
}

function isProxyProvider(value: unknown): value is ProxyRoutesProvider {
  return typeof value === "object" && value !== null && typeof (value as ProxyRoutesProvider).createProxyRoutes === "function";
}

/** The proxy groups the options ask for; a flag without a provider is a setup error, never silently ignored. */
function proxyGroups(options: AllRoutesOptions): RouteGroup[] {
  const surfaces: ProxySurfaces = {
    messages: Boolean(options.proxy || options.claudeProxy),
    chatCompletions: Boolean(options.proxy || options.openaiProxy),
  };
  if (!surfaces.messages && !surfaces.chatCompletions) return [];
  const provider = [options.proxy, options.claudeProxy, options.openaiProxy, options.proxyRoutes].find(isProxyProvider);
  if (!provider) {
    throw new Error(
      "The proxy, claudeProxy and openaiProxy options need @conduit-ai/proxy: pass its instance (`proxy: createProxy(config)`) or set `proxyRoutes`",
    );
  }
  return provider.createProxyRoutes(surfaces);
}

function isRuntime(value: unknown): value is Runtime {
  return typeof value === "object" && value !== null && typeof (value as Runtime).generate === "function";
}

/**
 * The spec's `createAllRoutes(basePath?, options?)` and the earlier runtime-first form
 * `createAllRoutes(runtime, basePath?, options?)`, told apart without guessing: a first argument
 * that is a runtime (it has `generate`), or `undefined` followed by a string, is the earlier form.
 */
function normalizeArguments(
  first: string | Runtime | AllRoutesOptions | undefined,
  second: string | AllRoutesOptions | undefined,
  third: AllRoutesOptions | undefined,
): { basePath: string; options: AllRoutesOptions } {
  if (isRuntime(first) || (first === undefined && typeof second === "string")) {
    const options = third ?? {};
    return { basePath: typeof second === "string" ? second : "/api", options: isRuntime(first) ? { ...options, runtime: first } : options };
  }
  if (typeof first === "object" && first !== null) return { basePath: "/api", options: first };
  return { basePath: first ?? "/api", options: typeof second === "object" && second !== null ? second : {} };
}

/**
 * Every built-in route group: agent, tools, mcp, memory, health and, with `enableSwagger`,
 * docs, and the proxy surfaces with `proxy`/`claudeProxy`/`openaiProxy`, over `options.runtime`.
 * `basePath` (default `/api`) is where the docs group says the routes live. Metrics are not a
 * group: the adapter mounts `/metrics` itself when `config.enableMetrics` is true (it needs the
 * server's own registry).
 *
 * @example
 * for (const group of createAllRoutes("/api", { runtime, enableSwagger: true, getRoutes: () => adapter.listRoutes() })) {
 *   adapter.registerRouteGroup(group);
 * }
 */
export function createAllRoutes(basePath?: string, options?: AllRoutesOptions): RouteGroup[];
export function createAllRoutes(options: AllRoutesOptions): RouteGroup[];
/**
 * The earlier runtime-first form, kept working: the same as `createAllRoutes(basePath, {...options, runtime})`.
 *
 * @example
 * const groups = createAllRoutes(runtime, "/api", { enableSwagger: true });
 */
export function createAllRoutes(runtime: Runtime | undefined, basePath?: string, options?: AllRoutesOptions): RouteGroup[];
export function createAllRoutes(
  first?: string | Runtime | AllRoutesOptions,
  second?: string | AllRoutesOptions,
  third?: AllRoutesOptions,
): RouteGroup[] {
  const { basePath, options } = normalizeArguments(first, second, third);
  const runtime = options.runtime;
  const health: HealthSource = options.health ?? {
    runtime,
    getLifecycleState: () => "running",
    getActiveConnectionCount: () => 0,
  };
  const groups = [
    createAgentRoutes(runtime),
    createToolRoutes(runtime),
    createMcpRoutes(runtime),
    createMemoryRoutes(runtime),
    createHealthRoutes(health, options.processDetails ? { processDetails: options.processDetails } : {}),
  ];
  groups.push(...proxyGroups(options));
  if (options.enableSwagger) {
    const getRoutes =
      options.getRoutes ??
      (() => groups.flatMap((group) => group.routes.map((route) => ({ ...route, path: `${group.prefix}${route.path}` }))));
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
  const groups = createAllRoutes(basePath ?? config.basePath, {
    ...options,
    runtime: options.runtime ?? adapter.runtime,
    enableSwagger: options.enableSwagger ?? config.enableSwagger,
    getRoutes: options.getRoutes ?? (() => adapter.listRoutes()),
    health: options.health ?? adapter,
    processDetails: options.processDetails ?? config.health.processDetails,
  });
  for (const group of groups) adapter.registerRouteGroup(group);
  return groups;
}
