import { ConfigurationError } from "../../errors/server-errors.js";

/**
 * The `redis` section of a config file: exactly one of the three forms, plus optional
 * credentials and key prefix. The environment (`REDIS_*`) wins over it.
 *
 * @example
 * const section: RedisSettings = { cluster: ["10.0.0.1:6379", "10.0.0.2:6379"], password: "…" };
 */
export interface RedisSettings {
  /** One server: `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url?: string;
  /** Cluster seed nodes, `host:port` (or `rediss://host:port` for TLS); the rest is discovered. */
  cluster?: string[];
  /** Sentinels, `host:port` (or `rediss://[user:password@]host:port`); needs `name`. */
  sentinels?: string[];
  /** The primary's name the sentinels monitor (`sentinel monitor <name> …`). */
  name?: string;
  username?: string;
  password?: string;
  /** Prepended to every key; default `conduit:`. */
  keyPrefix?: string;
}

export interface RedisAddress {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
  /** Every connection is TLS (`rediss://`). */
  tls: boolean;
  /** Prepended to every key (`REDIS_KEY_PREFIX`, default `conduit:`). */
  keyPrefix: string;
}

/** Where Redis is: one server, a cluster, or a primary found through sentinels. */
export type RedisTopology =
  | ({ form: "url"; url: string } & Credentials)
  | ({ form: "cluster"; nodes: RedisAddress[] } & Credentials)
  | ({ form: "sentinel"; sentinels: RedisAddress[]; name: string; sentinelUsername?: string; sentinelPassword?: string } & Credentials);

/** The environment variable that chose each form, for messages. */
const ENV_NAMES = { url: "REDIS_URL", cluster: "REDIS_CLUSTER_NODES", sentinel: "REDIS_SENTINELS" } as const;
const FILE_NAMES = { url: "redis.url", cluster: "redis.cluster", sentinel: "redis.sentinels" } as const;

type Form = keyof typeof ENV_NAMES;

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

interface ParsedAddress extends RedisAddress {
  tls: boolean;
  username?: string;
  password?: string;
}

function parseAddress(entry: string, where: string): ParsedAddress {
  const withScheme = /^[a-z]+:\/\//i.test(entry) ? entry : `redis://${entry}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigurationError(`${where}: "${entry}" is not host:port`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    throw new ConfigurationError(`${where}: "${entry}" must be host:port or redis(s)://host:port`);
  const port = Number(url.port || 6379);
  if (!url.hostname || !Number.isInteger(port) || port < 1 || port > 65_535)
    throw new ConfigurationError(`${where}: "${entry}" is not host:port`);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port,
    tls: url.protocol === "rediss:",
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

function addresses(entries: string[], where: string): ParsedAddress[] {
  if (entries.length === 0) throw new ConfigurationError(`${where}: needs at least one host:port`);
  return entries.map((entry) => parseAddress(entry, where));
}

/** Which forms a source sets; two at once is refused, naming both. */
function chosenForms(set: Record<Form, boolean>, names: Record<Form, string>): Form | undefined {
  const forms = (Object.keys(set) as Form[]).filter((form) => set[form]);
  if (forms.length > 1) {
    throw new ConfigurationError(
      `Redis: ${forms.map((form) => names[form]).join(" and ")} are both set; use exactly one of a single server, a cluster or sentinels`,
    );
  }
  return forms[0];
}

/**
 * Where Redis is, from the environment (`REDIS_URL` | `REDIS_CLUSTER_NODES` |
 * `REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`, with `REDIS_USERNAME`, `REDIS_PASSWORD`,
 * `REDIS_KEY_PREFIX`) or else a config file's `redis` section; `undefined` when neither names
 * one. Two forms at once (in the environment, or in the file) throw a `ConfigurationError`
 * naming both; the environment's form replaces the file's, its credentials and prefix win
 * field by field.
 *
 * @example
 * const topology = redisTopologyFrom(process.env, file.redis); // { form: "cluster", nodes: [...], ... }
 */
export function redisTopologyFrom(env: Record<string, string | undefined>, file: RedisSettings = {}): RedisTopology | undefined {
  const envForm = chosenForms(
    { url: Boolean(env.REDIS_URL), cluster: Boolean(env.REDIS_CLUSTER_NODES), sentinel: Boolean(env.REDIS_SENTINELS) },
    ENV_NAMES,
  );
  const fileForm = chosenForms(
    { url: Boolean(file.url), cluster: (file.cluster?.length ?? 0) > 0, sentinel: (file.sentinels?.length ?? 0) > 0 },
    FILE_NAMES,
  );
  const form = envForm ?? fileForm;
  if (form === undefined) return undefined;
  const fromEnv = envForm !== undefined;
  const credentials = {
    username: env.REDIS_USERNAME || file.username,
    password: env.REDIS_PASSWORD || file.password,
    keyPrefix: env.REDIS_KEY_PREFIX || file.keyPrefix || "conduit:",
  };
  const defined = <T extends object>(value: T): T =>
    Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
  if (form === "url") {
    const url = (fromEnv ? env.REDIS_URL : file.url) as string;
    const parsed = parseAddress(url, fromEnv ? "REDIS_URL" : "redis.url");
    return defined({ form, url, ...credentials, tls: parsed.tls });
  }
  if (form === "cluster") {
    const where = fromEnv ? ENV_NAMES.cluster : FILE_NAMES.cluster;
    const nodes = addresses(fromEnv ? list(env.REDIS_CLUSTER_NODES) : (file.cluster ?? []), where);
    const first = nodes[0] as ParsedAddress;
    return defined({
      form,
      nodes: nodes.map(({ host, port }) => ({ host, port })),
      ...credentials,
      username: credentials.username ?? first.username,
      password: credentials.password ?? first.password,
      tls: nodes.some((node) => node.tls),
    });
  }
  const where = fromEnv ? ENV_NAMES.sentinel : FILE_NAMES.sentinel;
  const sentinels = addresses(fromEnv ? list(env.REDIS_SENTINELS) : (file.sentinels ?? []), where);
  const name = env.REDIS_SENTINEL_MASTER || file.name;
  if (!name) throw new ConfigurationError(`Redis: ${where} needs the primary's name (${fromEnv ? "REDIS_SENTINEL_MASTER" : "redis.name"})`);
  const first = sentinels[0] as ParsedAddress;
  return defined({
    form,
    sentinels: sentinels.map(({ host, port }) => ({ host, port })),
    name,
    sentinelUsername: first.username,
    sentinelPassword: first.password,
    ...credentials,
    tls: sentinels.some((sentinel) => sentinel.tls),
  });
}

/**
 * The topology for logs and errors: addresses and form, never a password.
 *
 * @example
 * describeRedisTopology(topology); // "cluster 10.0.0.1:6379,10.0.0.2:6379 (tls)"
 */
export function describeRedisTopology(topology: RedisTopology): string {
  const tls = topology.tls ? " (tls)" : "";
  const join = (items: RedisAddress[]) => items.map((item) => `${item.host}:${item.port}`).join(",");
  if (topology.form === "cluster") return `cluster ${join(topology.nodes)}${tls}`;
  if (topology.form === "sentinel") return `sentinel ${topology.name}@${join(topology.sentinels)}${tls}`;
  const parsed = new URL(topology.url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
}
