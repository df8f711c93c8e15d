import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type ServerAdapterConfig, type ServerFramework, resolveConfig, validateFramework } from "@conduit-ai/server-core";
import { redisTopologyOf } from "./redis-setup.js";
import { UsageError } from "./usage-error.js";

/**
 * The config file shared by `conduit serve` and the demo: `server` is a `ServerAdapterConfig`;
 * every other key is one section the assembly applies (see `server-assembly.ts`).
 */
export interface ConduitConfigFile {
  server?: ServerAdapterConfig;
  [key: string]: unknown;
}

export interface ServeOptions {
  framework: ServerFramework;
  server: ServerAdapterConfig;
  file: ConduitConfigFile;
}

const KNOWN_FILE_KEYS = new Set([
  "server",
  "auth",
  "authorization",
  "mcpServers",
  "mcp",
  "mcpGateway",
  "aiWorkflows",
  "proxy",
  "keys",
  "admin",
  "prices",
  "redis",
  "telemetry",
  "console",
  "$schema",
]);

export const SERVE_USAGE = `Usage: conduit serve [--port N] [--host H] [--framework hono|express|fastify|koa] [--config file.json]
                     [--workers N|auto] [--allow-per-worker-state]
Environment: PORT, HOST, CONDUIT_FRAMEWORK, and one of REDIS_URL | REDIS_CLUSTER_NODES |
REDIS_SENTINELS + REDIS_SENTINEL_MASTER (or the config file's "redis" key; needed by --workers
above 1), with REDIS_USERNAME, REDIS_PASSWORD, REDIS_KEY_PREFIX;
OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables (traces).`;

/** Flags win over the environment, which wins over the config file, which wins over defaults. */
export function parseServeOptions(argv: string[], env: NodeJS.ProcessEnv, usage = SERVE_USAGE): ServeOptions {
  let values: { port?: string; host?: string; framework?: string; config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== "--"),
      options: {
        port: { type: "string" },
        host: { type: "string" },
        framework: { type: "string" },
        config: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
  if (values.help) throw new UsageError(usage);

  const file = values.config ? readConfigFile(values.config) : {};
  // The file is checked on its own first, so a bad value is reported even when a flag overrides it.
  try {
    resolveConfig(file.server);
  } catch (error) {
    throw new UsageError(describeConfigError(error, values.config));
  }
  // Exactly one Redis form (environment or the file's `redis` key): two at once exit 2 here, before anything starts.
  redisTopologyOf(env, file.redis, values.config ? `Config file ${values.config}` : "Configuration");
  const server: ServerAdapterConfig = { ...file.server };
  const port = values.port ?? (env.PORT || undefined);
  if (port !== undefined) {
    if (!/^\d+$/.test(port)) throw new UsageError(`Invalid port "${port}": expected an integer 0-65535`);
    server.port = Number(port);
  }
  const host = values.host ?? (env.HOST || undefined);
  if (host !== undefined) server.host = host;
  if (server.port === undefined) server.port = 3000;
  // The demo shows its API docs unless the config file turns them off.
  if (server.enableSwagger === undefined) server.enableSwagger = true;

  const frameworkName = values.framework ?? (env.CONDUIT_FRAMEWORK || "hono");
  let framework: ServerFramework;
  try {
    framework = validateFramework(frameworkName);
    resolveConfig(server);
  } catch (error) {
    throw new UsageError(describeConfigError(error, values.config));
  }
  return { framework, server, file };
}

export function readConfigFile(path: string): ConduitConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`Config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`Config file ${path} must hold a JSON object`);
  const unknown = Object.keys(parsed).filter((key) => !KNOWN_FILE_KEYS.has(key));
  if (unknown.length > 0)
    throw new UsageError(`Config file ${path}: unknown key(s) ${unknown.join(", ")} (allowed: ${[...KNOWN_FILE_KEYS].join(", ")})`);
  return parsed as ConduitConfigFile;
}

function describeConfigError(error: unknown, path: string | undefined): string {
  const issues = (error as { details?: { issues?: Array<{ path: string; message: string }> } }).details?.issues;
  const where = path ? `Config file ${path}` : "Configuration";
  if (!issues) return `${where}: ${(error as Error).message}`;
  return `${where} is invalid: ${issues.map((issue) => `${issue.path.startsWith("framework") ? issue.path : `server.${issue.path}`}: ${issue.message}`).join("; ")}`;
}
