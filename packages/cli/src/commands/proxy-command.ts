import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type ProxyConfig, chatCompletionsFor, createProxy, parseProxyConfig, registerProxyRoutes } from "@conduit-ai/proxy";
import { createRuntime } from "@conduit-ai/runtime";
import { type ServerAdapterConfig, createConsoleLogger, createServer, resolveConfig } from "@conduit-ai/server-core";
import type { Redis } from "ioredis";
import { connectRedis } from "../redis-connection.js";
import { UsageError } from "../usage-error.js";
import { drainOnSignals } from "./drain-on-signals.js";

export const PROXY_USAGE = `Usage: conduit proxy --config file.json [--port N] [--host H]
Serves the file's "proxy" section: /v1/messages, /limits, /accounts, /v1/chat/completions and /backend-api/codex/responses.
Environment: PORT, HOST, REDIS_URL (for "store": "redis"), REDIS_KEY_PREFIX.`;

interface ProxyCommandOptions {
  proxy: ProxyConfig;
  server: ServerAdapterConfig;
  host: string;
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
  let file: { proxy?: unknown; server?: ServerAdapterConfig };
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as typeof file;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? oneLine((error as Error).message);
    throw new UsageError(`Config file ${path}: cannot read it as JSON (${reason})`);
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) throw new UsageError(`Config file ${path} must hold a JSON object`);
  if (file.proxy === undefined) throw new UsageError(`Config file ${path} has no "proxy" section`);
  let proxy: ProxyConfig;
  try {
    proxy = parseProxyConfig(file.proxy);
  } catch (error) {
    throw new UsageError(`Config file ${path}: ${oneLine((error as Error).message)}`);
  }
  if (!proxy.enabled) throw new UsageError(`Config file ${path}: proxy.enabled is false, nothing to serve`);
  if (proxy.accounts.length === 0) throw new UsageError(`Config file ${path}: proxy.accounts is empty`);
  if (proxy.clientKeys.length === 0)
    throw new UsageError(`Config file ${path}: proxy.clientKeys is empty (the proxy never serves without a credential)`);
  if (proxy.store === "redis" && !env.REDIS_URL)
    throw new UsageError(`Config file ${path}: proxy.store is "redis" but REDIS_URL is not set`);
  const server: ServerAdapterConfig = { ...file.server };
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
  return { proxy, server, host };
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
    process.exit(2);
  }
  const logger = createConsoleLogger("warn");
  let redis: Redis | undefined;
  try {
    if (options.proxy.store === "redis") redis = await connectRedis(env.REDIS_URL as string, logger);
    const warn = (message: string) => logger.warn({ component: "proxy" }, message);
    const runtime = createRuntime({ env });
    const proxy = createProxy(options.proxy, {
      ...(redis ? { redis, redisPrefix: `${env.REDIS_KEY_PREFIX || "conduit:"}proxy:` } : {}),
      onWarning: warn,
      chatCompletions: chatCompletionsFor(runtime),
    });
    const server = await createServer(runtime, { config: options.server });
    registerProxyRoutes(server, proxy, { messages: true, chatCompletions: true });
    server.registerRouteGroup(proxy.createCodexRoutes());
    await server.start();
    console.log(`Conduit proxy listening on http://${options.host}:${server.address()?.port}`);

    drainOnSignals({
      drain: async () => {
        await server.stop();
        await proxy.close();
        await runtime.close();
        redis?.disconnect();
      },
      stopped: "Conduit proxy stopped",
    });
  } catch (error) {
    redis?.disconnect();
    const code = (error as { code?: string }).code;
    console.error(`Conduit proxy failed to start${code ? ` (${code})` : ""}: ${(error as Error).message}`);
    process.exit(1);
  }
}
