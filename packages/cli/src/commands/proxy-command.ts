import { parseArgs } from "node:util";
import { type ProxyConfig, chatCompletionsFor, createProxy, parseProxyConfig, registerProxyRoutes } from "@conduit-ai/proxy";
import { type ProviderConfig, createRuntime } from "@conduit-ai/runtime";
import { type ServerAdapterConfig, createConsoleLogger, createHealthRoutes, createServer, resolveConfig } from "@conduit-ai/server-core";
import type { RedisTopology } from "@conduit-ai/server-core/middleware";
import type { Governance } from "@conduit-ai/governance";
import { type GuardrailsConfigInput, createGuardrails, guardrailMetrics } from "@conduit-ai/guardrails";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { setupGovernance } from "../governance-setup.js";
import { serverPrices } from "../price-setup.js";
import { type SharedRedis, openRedis, redisTopologyOf } from "../redis-setup.js";
import { checkProviders, proxySectionMessage, readConfigFile, withMetricsSection } from "../config-file.js";
import { adminKeysOf, setupConsole } from "../console-setup.js";
import { CommandExit, UsageError } from "../usage-error.js";
import { startTelemetryIfAsked } from "../telemetry-setup.js";
import { drainOnSignals } from "./drain-on-signals.js";
import { attachKeyStatusGauge, setupKeyPools } from "../key-pools-setup.js";

export const PROXY_USAGE = `Usage: conduit proxy --config file.json [--port N] [--host H]
Serves the file's "proxy" section: /v1/messages, /limits, /accounts, /v1/chat/completions and /backend-api/codex/responses.
Also honours the file's "server", "providers", "keys", "admin", "console", "prices", "redis", "telemetry" and "metrics" keys
(named providers as <name>/<model>, virtual keys, the /admin API, one price table, the Redis topology); with "admin": {"keys": ["<at least 32 characters>"]} in the file, the
operator console at /console. Any other key (auth, mcpServers, … are conduit serve's) exits 2.
Environment: PORT, HOST, REDIS_URL | REDIS_CLUSTER_NODES | REDIS_SENTINELS + REDIS_SENTINEL_MASTER (for "store": "redis"), REDIS_USERNAME, REDIS_PASSWORD, REDIS_KEY_PREFIX, DATABASE_URL, CONDUIT_KEYS_SECRET, CONDUIT_ADMIN_KEY.`;

interface ProxyCommandOptions {
  proxy: ProxyConfig;
  /** The file's `keys`, `admin` and `prices` keys (governance), as read. */
  governance: { keys?: unknown; admin?: unknown; prices?: unknown; proxy?: unknown };
  server: ServerAdapterConfig;
  host: string;
  /** Where the pool lives with `store: "redis"`. */
  redis?: RedisTopology;
  /** The file's `telemetry` key, checked when tracing starts. */
  telemetry: unknown;
  /** The file's `admin` and `console` keys: the operator console when an admin key exists. */
  admin?: unknown;
  console?: unknown;
  /** The file's `providers` (checked): the runtime's named providers, `<name>/<model>` on /v1/chat/completions. */
  providers?: Record<string, ProviderConfig>;
  /** The file's `auth` key: only its `providers` here (the console's single sign-on). */
  auth?: unknown;
  /** The file's `guardrails` key (checked when the file was read): on every proxy surface. */
  guardrails?: unknown;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ");
}

/** Flags, then the config file's `proxy` (checked by the proxy's schema) and optional `server` sections. */
export function parseProxyOptions(argv: string[], env: NodeJS.ProcessEnv): ProxyCommandOptions {
  let values: { config?: string; port?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== "--"),
      options: { config: { type: "string" }, port: { type: "string" }, host: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${oneLine((error as Error).message)}\n${PROXY_USAGE}`);
  }
  if (values.help) throw new UsageError(PROXY_USAGE);
  if (!values.config) throw new UsageError(`conduit proxy needs --config file.json\n${PROXY_USAGE}`);
  const path = values.config;
  const file = readConfigFile(path, "proxy");
  if (file.proxy === undefined) throw new UsageError(`Config file ${path} has no "proxy" section`);
  let proxy: ProxyConfig;
  try {
    proxy = parseProxyConfig(file.proxy);
  } catch (error) {
    throw new UsageError(`Config file ${path}: ${oneLine(proxySectionMessage(file.proxy, (error as Error).message))}`);
  }
  if (!proxy.enabled) throw new UsageError(`Config file ${path}: proxy.enabled is false, nothing to serve`);
  // A gateway of runtime providers alone needs no Anthropic account.
  if (proxy.accounts.length === 0 && file.providers === undefined)
    throw new UsageError(`Config file ${path}: proxy.accounts is empty and no providers are configured (nothing to serve)`);
  if (proxy.clientKeys.length === 0 && file.keys === undefined)
    throw new UsageError(`Config file ${path}: proxy.clientKeys is empty (the proxy never serves without a credential)`);
  const sharedKeys = (file.keys as { store?: unknown } | undefined)?.store === "redis";
  const redis = proxy.store === "redis" || sharedKeys ? redisTopologyOf(env, file.redis, `Config file ${path}`) : undefined;
  if (proxy.store === "redis" && !redis)
    throw new UsageError(
      `Config file ${path}: proxy.store is "redis" but no Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS or a redis section)`,
    );
  const server: ServerAdapterConfig = withMetricsSection({ ...file.server }, file, `Config file ${path}`);
  const port = values.port ?? (env.PORT || undefined);
  if (port !== undefined) {
    if (!/^\d+$/.test(port) || Number(port) > 65_535) throw new UsageError(`Invalid port "${port}": expected an integer 0-65535`);
    server.port = Number(port);
  }
  server.port ??= 8787;
  // Loopback unless asked: the proxy spends its accounts' quota for whoever reaches it.
  const host = values.host ?? (env.HOST || undefined) ?? server.host ?? "127.0.0.1";
  server.host = host;
  try {
    resolveConfig(server);
  } catch (error) {
    throw new UsageError(`Config file ${path}: server section invalid: ${oneLine((error as Error).message)}`);
  }
  // A CONDUIT_ADMIN_KEY too short to be used stops the start instead of being ignored.
  adminKeysOf(file.admin, env);
  checkProviders(file.providers, env, `Config file ${path}`);
  try {
    serverPrices(file);
  } catch (error) {
    throw new UsageError(`Config file ${path}: ${(error as Error).message.replace(/^Config file: /, "")}`);
  }
  const governance = { keys: file.keys, admin: file.admin, prices: file.prices, proxy: file.proxy };
  return {
    proxy,
    server,
    host,
    governance,
    telemetry: file.telemetry,
    admin: file.admin,
    console: file.console,
    ...(file.providers === undefined ? {} : { providers: file.providers as Record<string, ProviderConfig> }),
    auth: file.auth,
    ...(file.guardrails === undefined ? {} : { guardrails: file.guardrails }),
    ...(redis ? { redis } : {}),
  };
}

/**
 * `conduit proxy`: the proxy surfaces of the config file's `proxy` section plus the codex engine
 * (mounted here only), on one server. Prints `Conduit proxy listening on http://HOST:PORT`;
 * SIGTERM/SIGINT drain and exit 0; a bad flag or config exits 2 with one line naming it.
 */
export async function runProxy(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let options: ProxyCommandOptions;
  try {
    options = parseProxyOptions(argv, env);
  } catch (error) {
    console.error(error instanceof UsageError ? error.message : `conduit proxy: ${(error as Error).message}`);
    throw new CommandExit(2);
  }
  const logger = createConsoleLogger("warn");
  let redis: SharedRedis | undefined;
  let governance: Governance | undefined;
  try {
    if (options.redis) redis = await openRedis(options.redis, logger);
    governance = await setupGovernance(options.governance, {
      redis,
      env,
      ...(options.redis ? { keyPrefix: options.redis.keyPrefix } : {}),
    });
    const warn = (message: string) => logger.warn({ component: "proxy" }, message);
    const telemetry = await startTelemetryIfAsked(env, options.telemetry, (message) => logger.warn({ component: "telemetry" }, message));
    // One price table: the usage ledger charges what the proxy's pool and governance charge.
    const prices = serverPrices(options.governance);
    // Providers with several apiKeys: one pool per provider, on the accounts' pool code and store.
    const keyPools = await setupKeyPools(options.providers, { redis, keyPrefix: options.redis?.keyPrefix ?? "conduit:", warn });
    const runtime = createRuntime({
      env,
      usage: { prices },
      ...(options.providers ? { providers: options.providers } : {}),
      ...(keyPools ? { keySources: keyPools.keySource } : {}),
    });
    // Every configured provider's package now: a missing one stops the start with its install line.
    await runtime.loadProviders();
    // The file's guardrails on every proxy surface, as `conduit serve` applies them (the key is valid for both commands).
    const guardrails = options.guardrails === undefined ? undefined : createGuardrails(options.guardrails as GuardrailsConfigInput);
    const proxy = createProxy(
      { ...options.proxy, prices },
      {
        ...(redis ? { redis, redisPrefix: `${options.redis?.keyPrefix ?? "conduit:"}proxy:` } : {}),
        onWarning: warn,
        chatCompletions: chatCompletionsFor(runtime),
        // Runtime targets of the `models` table on /v1/messages (a Claude model falling back to `local`).
        runtime,
        ...(keyPools ? { keyPools } : {}),
        // Virtual keys, limits and budgets on every proxy surface when the file has a `keys` section.
        ...(governance ? { gate: governance.gate } : {}),
        ...(guardrails ? { guardrails } : {}),
      },
    );
    const server = await createServer(runtime, { config: options.server });
    const metrics = guardrails ? getServerMetrics(server) : undefined;
    if (guardrails && metrics) guardrails.onHit(guardrailMetrics(metrics.registry));
    registerProxyRoutes(server, proxy, { messages: true, chatCompletions: true });
    attachKeyStatusGauge(server, keyPools);
    // The same `/api/health` group as `conduit serve`, so probes and manifests fit both commands.
    server.registerRouteGroup(createHealthRoutes(server, { processDetails: server.getConfig().health.processDetails }));
    // The admin API (with an admin credential) and the per-team metrics.
    governance?.install(server);
    server.registerRouteGroup(proxy.createCodexRoutes());
    await setupConsole(server, {
      admin: options.admin,
      console: options.console,
      auth: options.auth,
      env,
      proxy,
      ...(redis ? { redis } : {}),
      ...(governance ? { governance } : {}),
    });
    await server.start();
    console.log(`Conduit proxy listening on http://${options.host}:${server.address()?.port}`);

    drainOnSignals({
      drain: async () => {
        await server.stop();
        await proxy.close();
        await runtime.close();
        await governance?.close();
        redis?.disconnect();
        await telemetry?.shutdown();
      },
      stopped: "Conduit proxy stopped",
    });
  } catch (error) {
    await governance?.close().catch(() => undefined);
    redis?.disconnect();
    if (error instanceof UsageError) {
      console.error(error.message);
      throw new CommandExit(2);
    }
    const code = (error as { code?: string }).code;
    console.error(`Conduit proxy failed to start${code ? ` (${code})` : ""}: ${(error as Error).message}`);
    throw new CommandExit(1);
  }
}
