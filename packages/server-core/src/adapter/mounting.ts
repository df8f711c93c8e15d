import type { ServerAdapter } from "../contracts/adapter.js";
import type { ServerAdapterConfig } from "../contracts/config.js";
import type { Runtime } from "../contracts/runtime.js";
import { registerAllRoutes } from "../routes/all-routes.js";
import type { RequestHandler } from "../core/pipeline/request-handler.js";
import { parseRequestTarget } from "../core/pipeline/request-target.js";

/**
 * What every framework-native form takes (Fastify plugin, Express router, Hono sub-app and
 * fetch handler, Koa middleware): the runtime whose route groups to serve, the configuration,
 * and a hook to add routes and middleware before the first request.
 */
export interface MountOptions<TServer = ServerAdapter> {
  runtime?: Runtime;
  /**
   * As for `createServer`, with two defaults of its own: `basePath` `""` (Conduit's routes sit
   * right under the mount point: `app.use("/ai", router)` → `/ai/agent/stream`), and
   * `disableBuiltInHealth` true (the absolute `/health` and `/ready` would sit outside the mount
   * point, in the host's paths; with a runtime the health group serves `<mount>/health/...`).
   */
  config?: ServerAdapterConfig;
  /** Register Conduit's route groups (agent, tools, mcp, memory, health, docs). Default: when a runtime is given. */
  routes?: boolean;
  /** Adds routes and middleware to the mounted server (runs once, before it is mounted). */
  setup?: (server: TServer) => void;
}

/** The configuration of a mounted server: `basePath` defaults to the mount point itself, no paths outside it. */
export function mountedConfig(config: ServerAdapterConfig = {}): ServerAdapterConfig {
  return { ...config, basePath: config.basePath ?? "", disableBuiltInHealth: config.disableBuiltInHealth ?? true };
}

/** Registers the route groups and runs `setup`, as `MountOptions` asks. */
export function prepareMounted<TServer extends ServerAdapter & { readonly runtime: Runtime | undefined; markMounted(): void }>(
  server: TServer,
  options: MountOptions<TServer>,
): TServer {
  if (options.routes ?? options.runtime !== undefined) registerAllRoutes(server);
  options.setup?.(server);
  server.markMounted();
  return server;
}

/**
 * True when Conduit has a route at this request target's path (for any method), so a mounted
 * form answers it (405s, OPTIONS and malformed escapes included) and leaves every other path to
 * the host app (`next()`, the host's not-found handler).
 */
export function claimsRequest(handler: RequestHandler, url: string): boolean {
  const target = parseRequestTarget(url);
  if (!target) return false;
  try {
    return handler.routes.find("GET", target.path).allowed.length > 0;
  } catch {
    // A malformed `%` escape on a path of ours: the core's 400 envelope.
    return true;
  }
}
