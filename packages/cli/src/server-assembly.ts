import { type McpServerConfig, createRuntime } from "@conduit-ai/runtime";
import {
  type MiddlewareDefinition,
  type ServerAdapter,
  type ServerAdapterConfig,
  createConsoleLogger,
  createServer,
  registerAllRoutes,
} from "@conduit-ai/server-core";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { attachWebSocket } from "@conduit-ai/websocket";
import { setupAuth } from "./auth-setup.js";
import type { ServeOptions } from "./config-file.js";
import { setupProxy } from "./proxy-setup.js";
import { connectRedis } from "./redis-connection.js";
import { UsageError } from "./usage-error.js";

/** A server built from a config file, not started yet; `close()` releases what the runtime holds. */
export interface AssembledServer {
  server: ServerAdapter;
  /** The config's auth and authorization middleware (`conduit routes` shows where they apply). */
  authMiddleware: readonly MiddlewareDefinition[];
  close(): Promise<void>;
}

/**
 * The one assembly of a Conduit server from a config file: runtime, every route group, the
 * config's sections (`auth`, `authorization`, `mcpServers`, …) and the WebSocket surface.
 * `conduit serve` and the demo both call it, so they never differ. With `REDIS_URL` every
 * shared state lives in Redis (one fail-fast client): the rate limiter (shared with the
 * WebSocket surface), conversation memory, the usage ledger and auth sessions, so N processes
 * (`conduit serve --workers N`, or N machines) behave as one.
 *
 * @example
 * const { server, close } = await assembleServer(parseServeOptions(["--port", "0"], process.env));
 * await server.start();
 */
export async function assembleServer(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): Promise<AssembledServer> {
  const redisUrl = env.REDIS_URL || undefined;
  const redis = redisUrl ? await connectRedis(redisUrl, createConsoleLogger("warn")) : undefined;
  let auth: Awaited<ReturnType<typeof setupAuth>>;
  try {
    auth = await setupAuth(options.file, env, redis);
  } catch (error) {
    redis?.disconnect();
    throw error;
  }
  const runtime = createRuntime({
    env,
    mcpServers: options.file.mcpServers as Record<string, McpServerConfig> | undefined,
    ...(redis ? { redis } : {}),
    ...(auth.tokenProvider ? { auth: auth.tokenProvider } : {}),
  });
  let proxy: Awaited<ReturnType<typeof setupProxy>>;
  try {
    proxy = await setupProxy(options.file.proxy, { redis, runtime, env });
  } catch (error) {
    await runtime.close();
    await auth.close();
    redis?.disconnect();
    throw error;
  }
  const config: ServerAdapterConfig = { ...options.server };
  if (redis && config.rateLimit?.enabled !== false && config.rateLimit?.store === undefined) {
    const prefix = `${env.REDIS_KEY_PREFIX || "conduit:"}ratelimit:`;
    config.rateLimit = { ...config.rateLimit, store: new RedisRateLimitStore(redis, { prefix }) };
  }
  const server = await createServer(runtime, { framework: options.framework, config });
  for (const middleware of auth.middleware) server.registerMiddleware(middleware);
  registerAllRoutes(server, undefined, proxy ? { proxy } : {});
  if (auth.routes) server.registerRouteGroup(auth.routes);
  await mountAiWorkflows(server, options.file.aiWorkflows);
  // The WebSocket surface asks for the same credentials as HTTP (fail closed).
  attachWebSocket(server, { runtime, auth: auth.webSocket });
  return {
    server,
    authMiddleware: auth.middleware,
    close: async () => {
      await runtime.close();
      await auth.close();
      await proxy?.close();
      redis?.disconnect();
    },
  };
}

const AI_WORKFLOW_NUMBERS = ["providerTimeoutMs", "maxOutputTokens", "maxPromptCharacters", "benchmarkCallTimeoutMs", "benchmarkBudgetMs"];

/** The `/api/ai` endpoints (loaded on demand); config `aiWorkflows: false` leaves them out, an object sets their options. */
async function mountAiWorkflows(server: ServerAdapter, section: unknown): Promise<void> {
  if (section === false) return;
  const options = section ?? {};
  const invalid =
    typeof options !== "object" || options === null || Array.isArray(options)
      ? ["aiWorkflows"]
      : Object.entries(options)
          .filter(([key, value]) => !(AI_WORKFLOW_NUMBERS.includes(key) && typeof value === "number" && value > 0))
          .map(([key]) => `aiWorkflows.${key}`);
  if (invalid.length > 0)
    throw new UsageError(
      `Config file: invalid ${invalid.join(", ")} (aiWorkflows is false or {${AI_WORKFLOW_NUMBERS.join(", ")}} with positive numbers)`,
    );
  const { registerAiWorkflows } = await import("@conduit-ai/ai-workflows");
  registerAiWorkflows(server, options);
}
