import type { Logger } from "@conduit-ai/server-core";
import { type RedisSettings, type RedisTopology, connectRedis, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import type { Cluster, Redis } from "ioredis";
import { UsageError } from "./usage-error.js";

/** The assembly's Redis client: one server or sentinel (`Redis`), or a `Cluster`. */
export type SharedRedis = Redis | Cluster;

const SECTION_KEYS = new Set(["url", "cluster", "sentinels", "name", "username", "password", "keyPrefix"]);

/** The config file's `redis` section, checked: a bad shape is a `UsageError` naming the key. */
function readSection(value: unknown, where: string): RedisSettings {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError(`${where}: redis must be an object ({url} | {cluster: [...]} | {sentinels: [...], name})`);
  const section = value as Record<string, unknown>;
  for (const key of Object.keys(section)) {
    if (!SECTION_KEYS.has(key)) throw new UsageError(`${where}: unknown key redis.${key} (allowed: ${[...SECTION_KEYS].join(", ")})`);
    const item = section[key];
    const isList = key === "cluster" || key === "sentinels";
    const valid = isList ? Array.isArray(item) && item.every((entry) => typeof entry === "string") : typeof item === "string";
    if (!valid) throw new UsageError(`${where}: redis.${key} must be ${isList ? 'a list of "host:port" strings' : "a string"}`);
  }
  return section as RedisSettings;
}

/**
 * Where the shared state lives: the `REDIS_*` environment (`REDIS_URL` | `REDIS_CLUSTER_NODES` |
 * `REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`), else the config file's `redis` section;
 * undefined for neither. Two forms at once, or a malformed one, is a `UsageError` (exit 2).
 *
 * @example
 * const topology = redisTopologyOf(process.env, file.redis, "Config file conduit.json");
 */
export function redisTopologyOf(env: NodeJS.ProcessEnv, section: unknown, where = "Config file"): RedisTopology | undefined {
  const settings = readSection(section, where);
  try {
    return redisTopologyFrom(env, settings);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The one Redis client of an assembled server, from server-core's factory: fail fast (503
 * `STORE_UNAVAILABLE` while Redis cannot answer), automatic recovery, a warning at most every
 * 10 s while it is unreachable. Waits up to 3 s for Redis at boot, then serves anyway
 * (readiness says down meanwhile).
 *
 * @example
 * const redis = topology ? await openRedis(topology, logger) : undefined;
 */
export function openRedis(topology: RedisTopology, logger: Pick<Logger, "warn">): Promise<SharedRedis> {
  return connectRedis<SharedRedis>(topology, { feature: "shared state in Redis (REDIS_URL)", from: import.meta.url, logger });
}
