import { parseAiWorkflowsConfig } from "@conduit-ai/ai-workflows";
import { type McpServerConfig, type ProviderConfig, createRuntime } from "@conduit-ai/runtime";
import {
  type MiddlewareDefinition,
  type Runtime,
  type ServerAdapter,
  type ServerAdapterConfig,
  createConsoleLogger,
  createServer,
  registerAllRoutes,
} from "@conduit-ai/server-core";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { attachWebSocket } from "@conduit-ai/websocket";
import type { Governance } from "@conduit-ai/governance";
import { type GuardrailsConfigInput, createApiGuardrails, createGuardrails, guardrailMetrics } from "@conduit-ai/guardrails";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { setupAuth } from "./auth-setup.js";
import { attachKeyStatusGauge, setupKeyPools } from "./key-pools-setup.js";
import { setupGovernance } from "./governance-setup.js";
import { setupMcpGateway } from "./mcp-gateway-setup.js";
import { CONSOLE_PUBLIC_PATHS, consoleWanted, serverAuthSection, setupConsole } from "./console-setup.js";
import type { ServeOptions } from "./config-file.js";
import { serverPrices } from "./price-setup.js";
import { setupProxy } from "./proxy-setup.js";
import { openRedis, redisTopologyOf } from "./redis-setup.js";
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
 * `conduit serve` and the demo both call it, so they never differ. With Redis (`REDIS_URL`, `REDIS_CLUSTER_NODES`, `REDIS_SENTINELS` or the `redis` key) every
 * shared state lives in Redis (one fail-fast client): the rate limiter (shared with the
 * WebSocket surface), conversation memory, the usage ledger and auth sessions, so N processes
 * (`conduit serve --workers N`, or N machines) behave as one.
 *
 * @example
 * const { server, close } = await assembleServer(parseServeOptions(["--port", "0"], process.env));
 * await server.start();
 */
export async function assembleServer(options: ServeOptions, env: NodeJS.ProcessEnv = process.env): Promise<AssembledServer> {
  // One price table: the usage ledger charges what the proxy's pool and governance charge.
  const prices = serverPrices(options.file);
  const topology = redisTopologyOf(env, options.file.redis);
  const redis = topology ? await openRedis(topology, createConsoleLogger("warn")) : undefined;
  const keyPrefix = topology?.keyPrefix ?? "conduit:";
  // `auth.providers` sign users in to the console; the rest of `auth` is the server's own auth.
  const serverAuth = serverAuthSection(options.file.auth);
  let auth: Awaited<ReturnType<typeof setupAuth>>;
  let governance: Governance | undefined;
  // `auth: {"type": "virtual-key"}`: governance's keys are the credentials of /api and /ws.
  const virtualKeyAuth = (serverAuth as { type?: unknown } | undefined)?.type === "virtual-key";
  // The server's own auth: its users with role `admin` are admins of /admin and the console (governance's README).
  const serverAdminRole = serverAuth !== undefined && !virtualKeyAuth;
  try {
    governance = await setupGovernance(options.file, { redis, env, keyPrefix, serverAdminRole });
    if (virtualKeyAuth && !governance) throw new UsageError('Config file: auth type "virtual-key" needs a "keys" section');
    const { auth: _auth, ...withoutAuth } = options.file;
    auth = await setupAuth(
      virtualKeyAuth || serverAuth === undefined ? withoutAuth : { ...withoutAuth, auth: serverAuth },
      env,
      redis,
      keyPrefix,
      consoleWanted(options.file, env) ? CONSOLE_PUBLIC_PATHS : [],
    );
  } catch (error) {
    await governance?.close();
    redis?.disconnect();
    throw error;
  }
  // Providers with several apiKeys: one pool per provider, on the proxy's pool code, shared through Redis.
  const keyPools = await setupKeyPools(options.file.providers, {
    redis,
    keyPrefix,
    warn: (message) => createConsoleLogger("warn").warn({ component: "providers" }, message),
  });
  const runtime = createRuntime({
    env,
    ...(keyPools ? { keySources: keyPools.keySource } : {}),
    // Checked by parseServeOptions already (exit 2 naming the key).
    providers: options.file.providers as Record<string, ProviderConfig> | undefined,
    mcpServers: options.file.mcpServers as Record<string, McpServerConfig> | undefined,
    usage: { prices, ...(redis ? { redis, keyPrefix: `${keyPrefix}usage:` } : {}) },
    ...(redis ? { redis, redisKeyPrefix: `${keyPrefix}memory:` } : {}),
    ...(auth.tokenProvider ? { auth: auth.tokenProvider } : {}),
  });
  // Checked by readConfigFile already (exit 2 naming the key path).
  const guardrails = options.file.guardrails === undefined ? undefined : createGuardrails(options.file.guardrails as GuardrailsConfigInput);
  let proxy: Awaited<ReturnType<typeof setupProxy>>;
  try {
    // Every configured provider's package now: a missing one stops the start with its install line.
    await runtime.loadProviders();
    proxy = await setupProxy(options.file.proxy, {
      redis,
      runtime,
      keyPrefix,
      prices,
      ...(governance ? { gate: governance.gate } : {}),
      ...(keyPools ? { keyPools } : {}),
      guardrails,
    });
  } catch (error) {
    await runtime.close();
    await auth.close();
    await governance?.close();
    redis?.disconnect();
    throw error;
  }
  const config: ServerAdapterConfig = { ...options.server };
  if (redis && config.rateLimit?.enabled !== false && config.rateLimit?.store === undefined) {
    config.rateLimit = { ...config.rateLimit, store: new RedisRateLimitStore(redis, { prefix: `${keyPrefix}ratelimit:` }) };
  }
  // The server's own AI surfaces (/api/agent/*, /api/ai/*, /ws) run the same guardrails as the proxy's.
  const apiGuardrails = guardrails ? createApiGuardrails(guardrails) : undefined;
  const server = await createServer(apiGuardrails ? apiGuardrails.agentRuntime(runtime) : runtime, {
    framework: options.framework,
    config,
  });
  attachKeyStatusGauge(server, keyPools);
  const metrics = guardrails ? getServerMetrics(server) : undefined;
  if (guardrails && metrics) guardrails.onHit(guardrailMetrics(metrics.registry));
  // With an admin API, a request to it bearing an admin key passes the server's auth (and only
  // there): the admin key alone opens /admin, and the console's forward with it is admitted.
  let authMiddleware = auth.middleware;
  if (governance?.adminEnabled) {
    // Loaded already: setupGovernance imported it on demand.
    const { admitAdminKeysPast } = await import("@conduit-ai/governance");
    const admin = { check: governance.checkAdmin, routes: governance.adminRoutes(), failures: governance.credentialFailures };
    authMiddleware = auth.middleware.map((middleware) => admitAdminKeysPast(middleware, admin));
  }
  for (const middleware of authMiddleware) server.registerMiddleware(middleware);
  if (apiGuardrails) {
    server.registerMiddleware(apiGuardrails.middleware);
    server.registerMiddleware(apiGuardrails.workflowMiddleware);
  }
  // The identity provider in readiness and `conduit_auth_provider_up`.
  auth.attach(server);
  registerAllRoutes(server, undefined, proxy ? { proxy } : {});
  if (auth.routes) server.registerRouteGroup(auth.routes);
  // With virtual keys, the workflows' model calls are admitted and charged one by one, like /api/agent's.
  // The gate outside the guardrails: each call's hits (its answer's included) are in its usage event.
  const guardedWorkflows = apiGuardrails ? apiGuardrails.workflowRuntime(runtime) : runtime;
  await mountAiWorkflows(
    server,
    options.file.aiWorkflows,
    virtualKeyAuth && governance ? governance.apiRuntime(guardedWorkflows) : guardedWorkflows,
  );
  governance?.install(server, { virtualKeyAuth });
  await setupMcpGateway(server, options.file, {
    gate: governance?.gate,
    redis,
    keyPrefix,
    serverAuth: auth.middleware.length > 0,
    guardrails,
  });
  // The operator console, only when an admin credential exists (`admin.keys`, or the auth's role `admin`).
  await setupConsole(server, {
    admin: options.file.admin,
    console: options.file.console,
    auth: options.file.auth,
    env,
    ...(auth.validateCredential ? { validateCredential: auth.validateCredential } : {}),
    ...(auth.credentialRule ? { credentialRule: auth.credentialRule } : {}),
    ...(redis ? { redis } : {}),
    ...(proxy ? { proxy } : {}),
    ...(governance ? { governance } : {}),
  });
  // The WebSocket surface asks for the same credentials as HTTP (fail closed); with virtual keys,
  // its messages that start work go through the same gate.
  // Its messages' model calls: the gate outside the guardrails, as on /api/ai.
  const guardedMessages = apiGuardrails ? apiGuardrails.workflowRuntime(runtime) : runtime;
  const webSocket = virtualKeyAuth && governance ? governance.webSocket(guardedMessages) : undefined;
  attachWebSocket(server, {
    runtime: webSocket ? webSocket.runtime : guardedMessages,
    auth: webSocket ? webSocket.auth : auth.webSocket,
  });
  return {
    server,
    authMiddleware,
    close: async () => {
      await runtime.close();
      await auth.close();
      await proxy?.close();
      await governance?.close();
      redis?.disconnect();
    },
  };
}

/** The `/api/ai` endpoints (loaded on demand); config `aiWorkflows: false` leaves them out, an object sets their options. */
async function mountAiWorkflows(server: ServerAdapter, section: unknown, runtime: Runtime): Promise<void> {
  // Checked when the config file was read (`checkConfigSections`); parsed again for its options.
  const options = parseAiWorkflowsConfig(section);
  if (options === false) return;
  const { createAiWorkflowRoutes } = await import("@conduit-ai/ai-workflows");
  server.registerRouteGroup(createAiWorkflowRoutes(runtime, options));
}
