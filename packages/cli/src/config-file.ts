import { parseAiWorkflowsConfig } from "@conduit-ai/ai-workflows";
import { parseGuardrailsConfig } from "@conduit-ai/guardrails";
import { parseTelemetryConfig } from "@conduit-ai/telemetry";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseProvidersConfig } from "@conduit-ai/runtime";
import { type ServerAdapterConfig, type ServerFramework, resolveConfig, validateFramework } from "@conduit-ai/server-core";
import { adminKeysOf, checkSsoProvider, parseAdminKeys, parseConsoleSection } from "./console-setup.js";
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

/** The commands that read a config file (the demo is `serve`). */
export type ConfigFileCommand = "serve" | "proxy";

/**
 * Every top-level key a config file may hold, with the commands that honour it. A key outside
 * this table, or one the running command does not honour, stops the start (exit 2): a section
 * that would silently do nothing is a mistake the operator must hear about.
 */
const CONFIG_FILE_KEYS: Record<string, readonly ConfigFileCommand[]> = {
  $schema: ["serve", "proxy"],
  server: ["serve", "proxy"],
  proxy: ["serve", "proxy"],
  guardrails: ["serve", "proxy"],
  keys: ["serve", "proxy"],
  admin: ["serve", "proxy"],
  console: ["serve", "proxy"],
  prices: ["serve", "proxy"],
  providers: ["serve", "proxy"],
  models: ["serve", "proxy"],
  cache: ["serve", "proxy"],
  redis: ["serve", "proxy"],
  telemetry: ["serve", "proxy"],
  metrics: ["serve", "proxy"],
  auth: ["serve"],
  authorization: ["serve"],
  mcpServers: ["serve"],
  mcp: ["serve"],
  mcpGateway: ["serve"],
  aiWorkflows: ["serve"],
};

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

  const file = values.config ? readConfigFile(values.config, "serve") : {};
  const where = values.config ? `Config file ${values.config}` : "Configuration";
  // The file is checked on its own first, so a bad value is reported even when a flag overrides it.
  const fromFile = withMetricsSection({ ...file.server }, file, where);
  try {
    resolveConfig(fromFile);
  } catch (error) {
    throw new UsageError(describeConfigError(error, values.config));
  }
  // Exactly one Redis form (environment or the file's `redis` key): two at once exit 2 here, before anything starts.
  redisTopologyOf(env, file.redis, where);
  // A CONDUIT_ADMIN_KEY too short to be used stops the start instead of being ignored.
  adminKeysOf(file.admin, env);
  checkProviders(file.providers, env, where);
  const server: ServerAdapterConfig = fromFile;
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

/**
 * The one reader of a config file, for every command (`serve`, `proxy`, the demo, `routes`,
 * `openapi`): JSON holding an object whose top-level keys the command honours, and the checks
 * that span sections (see `checkConfigSections`). Any mistake is a `UsageError` naming it (exit 2).
 *
 * @example
 * const file = readConfigFile("conduit.json", "proxy");
 */
export function readConfigFile(path: string, command: ConfigFileCommand = "serve"): ConduitConfigFile {
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
    throw new UsageError(`Config file ${path} is not valid JSON: ${(error as Error).message.replace(/\s*\n\s*/g, " ")}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`Config file ${path} must hold a JSON object`);
  const allowed = Object.keys(CONFIG_FILE_KEYS).filter((key) => CONFIG_FILE_KEYS[key]?.includes(command));
  const keys = Object.keys(parsed);
  const unknown = keys.filter((key) => !Object.hasOwn(CONFIG_FILE_KEYS, key));
  if (unknown.length > 0)
    throw new UsageError(`Config file ${path}: unknown key(s) ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`);
  // `auth` holding only `providers` signs users in to the console, which every command mounts.
  const onlyProviders = (key: string) => key === "auth" && isProvidersOnly((parsed as Record<string, unknown>).auth);
  const elsewhere = keys.filter((key) => !allowed.includes(key) && !onlyProviders(key));
  if (elsewhere.length > 0)
    throw new UsageError(
      `Config file ${path}: ${elsewhere.join(", ")} ${elsewhere.length > 1 ? "are" : "is"} not used by conduit ${command} (conduit serve honours ${elsewhere.length > 1 ? "them" : "it"}; allowed here: ${allowed.join(", ")})`,
    );
  const file = withTopLevelCache(withTopLevelModels(parsed as ConduitConfigFile, `Config file ${path}`), `Config file ${path}`);
  checkConfigSections(file, `Config file ${path}`);
  return file;
}

/**
 * The top-level `models` (routing names) is `proxy.models` by another name: merged into the
 * `proxy` section, a name given in both stops the start (exit 2) instead of one silently winning.
 */
function withTopLevelModels(file: ConduitConfigFile, where: string): ConduitConfigFile {
  const models = (file as { models?: unknown }).models;
  if (models === undefined) return file;
  if (typeof models !== "object" || models === null || Array.isArray(models))
    throw new UsageError(`${where}: models must be an object of routing names`);
  const proxy = (file.proxy ?? {}) as Record<string, unknown>;
  if (typeof proxy !== "object" || proxy === null || Array.isArray(proxy)) return file;
  // The runtime's own routes (`/api/agent/*`, `/api/ai/*`) take `<provider>/<model>` only: a
  // routing name is served by the proxy surfaces, so without them the key would do nothing.
  if (proxy.enabled !== true)
    throw new UsageError(
      `${where}: models (routing names) needs the proxy surfaces that serve them: add "proxy": { "enabled": true } with clientKeys or a keys section`,
    );
  const nested = (proxy.models ?? {}) as Record<string, unknown>;
  const twice = Object.keys(models).filter((name) => Object.hasOwn(nested, name));
  if (twice.length > 0) throw new UsageError(`${where}: models.${twice[0]} is also in proxy.models (give each routing name once)`);
  const { models: _models, ...rest } = file as ConduitConfigFile & { models?: unknown };
  const merged = { ...proxy, models: { ...nested, ...models } };
  topLevelNames.set(merged, new Set(Object.keys(models)));
  return { ...rest, proxy: merged } as ConduitConfigFile;
}

/** The routing names each merged `proxy` section took from the top-level `models`, to report them where they were written. */
const topLevelNames = new WeakMap<object, Set<string>>();

/**
 * A `proxy` section's config error in the file's own terms: a mistake in a routing name given
 * at the top level names `models.<name>…`, not the `proxy.models.<name>…` it was merged into.
 *
 * @example
 * proxySectionMessage(file.proxy, "Invalid proxy config: proxy.models.fast.strategy: …"); // "… models.fast.strategy: …"
 */
export function proxySectionMessage(section: unknown, message: string): string {
  const names = typeof section === "object" && section !== null ? topLevelNames.get(section) : undefined;
  if (names === undefined) return message;
  return message.replace(/\bproxy\.models\.([^.:\s]+)/g, (field, name: string) => (names.has(name) ? `models.${name}` : field));
}

/**
 * The top-level `cache` (the exact response cache of model calls: `{store, ttlSeconds,
 * maxEntryBytes, maxEntries}`) is `proxy.cache` by another name: moved into the `proxy` section,
 * where the proxy's parser checks it; both given stops the start (exit 2) naming both.
 */
function withTopLevelCache(file: ConduitConfigFile, where: string): ConduitConfigFile {
  const { cache, ...rest } = file as ConduitConfigFile & { cache?: unknown };
  if (cache === undefined) return file;
  const proxy = (file.proxy ?? {}) as Record<string, unknown>;
  if (typeof proxy !== "object" || proxy === null || Array.isArray(proxy)) return file;
  if (proxy.cache !== undefined)
    throw new UsageError(`${where}: cache is given twice (top-level cache and proxy.cache are the same setting): keep one`);
  return { ...rest, proxy: { ...proxy, cache } } as ConduitConfigFile;
}

/**
 * Rules across sections, the same for every command: `admin`, `console`, `telemetry` and
 * `aiWorkflows` each pass the schema of the package that owns it (governance, the console,
 * telemetry, ai-workflows: an unknown key or a bad value names its key path), `console.sso`
 * names an `auth.providers` entry, and `proxy.clientKeys`
 * never sit beside a `keys` section — with virtual keys the proxy admits only them, so client
 * keys would answer 401 with no word at start.
 */
export function checkConfigSections(file: ConduitConfigFile, where = "Configuration"): void {
  const named = (error: unknown) => new UsageError(`${where}: ${(error as Error).message.replace(/^Config file: /, "")}`);
  try {
    parseAdminKeys(file.admin);
    parseConsoleSection(file.console);
    checkSsoProvider(file);
    if (file.telemetry !== undefined) parseTelemetryConfig(file.telemetry);
    parseAiWorkflowsConfig(file.aiWorkflows);
    // A refused pattern (catastrophic backtracking) or an unknown rule name stops the start, naming its key path.
    if (file.guardrails !== undefined) parseGuardrailsConfig(file.guardrails);
  } catch (error) {
    throw named(error);
  }
  const proxy = file.proxy as { enabled?: unknown; clientKeys?: unknown } | undefined;
  if (file.keys !== undefined && proxy?.enabled === true && Array.isArray(proxy.clientKeys) && proxy.clientKeys.length > 0)
    throw new UsageError(
      `${where}: proxy.clientKeys cannot be used beside a "keys" section (the proxy then admits virtual keys only): remove proxy.clientKeys and give each client a virtual key (POST /admin/keys, conduit keys create)`,
    );
}

/**
 * The `providers` key (and the provider environment shortcuts it sits beside) checked as the
 * runtime will read it, `"env:NAME"` secrets included: a mistake exits 2 naming the key
 * (`providers.gemini.apiKeys: expected a non-empty array`) before anything starts.
 */
export function checkProviders(section: unknown, env: NodeJS.ProcessEnv, where = "Configuration"): void {
  try {
    parseProvidersConfig(section, env);
  } catch (error) {
    throw new UsageError(`${where}: ${(error as Error).message}`);
  }
}

/** An `auth` section that holds nothing but `providers` (identity providers for the console's sign-in). */
function isProvidersOnly(auth: unknown): boolean {
  return typeof auth === "object" && auth !== null && !Array.isArray(auth) && Object.keys(auth).every((key) => key === "providers");
}

/** The config file's top-level `metrics` key as the server's `metrics` option (`server.metrics`: who reads `/api/metrics`); both at once exit 2. */
export function withMetricsSection(server: ServerAdapterConfig, file: ConduitConfigFile, where: string): ServerAdapterConfig {
  if (file.metrics === undefined) return server;
  if ((file.server as Record<string, unknown> | undefined)?.metrics !== undefined)
    throw new UsageError(`${where}: metrics is given twice (top-level metrics and server.metrics): keep one`);
  // Checked with the rest of the server config by `resolveConfig`.
  return { ...server, metrics: file.metrics as ServerAdapterConfig["metrics"] };
}

function describeConfigError(error: unknown, path: string | undefined): string {
  const issues = (error as { details?: { issues?: Array<{ path: string; message: string }> } }).details?.issues;
  const where = path ? `Config file ${path}` : "Configuration";
  if (!issues) return `${where}: ${(error as Error).message}`;
  return `${where} is invalid: ${issues.map((issue) => `${issue.path.startsWith("framework") ? issue.path : `server.${issue.path}`}: ${issue.message}`).join("; ")}`;
}
