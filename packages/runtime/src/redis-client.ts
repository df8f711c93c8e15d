import type { Logger } from "@conduit-ai/server-core";
import { createRedisClient, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import type { Cluster, Redis } from "ioredis";

/** A Redis client the runtime's stores accept: one server or sentinel (`Redis`), or a `Cluster`. */
export type RuntimeRedis = Redis | Cluster;

/**
 * The Redis client of a runtime store: the `redis` option when it is a client (the caller's,
 * not closed by the store), else one made by server-core's factory from the option's URL or
 * from the environment (`REDIS_URL`, `REDIS_CLUSTER_NODES`, `REDIS_SENTINELS` +
 * `REDIS_SENTINEL_MASTER`, `REDIS_USERNAME`/`REDIS_PASSWORD`); `undefined` when none is set.
 * ioredis is an optional peer loaded only then; absent, `MissingDependencyError` names the install line.
 *
 * @example
 * const redis = runtimeRedis(options.redis, process.env, "the Redis memory store", logger);
 */
export function runtimeRedis(
  option: string | RuntimeRedis | undefined,
  environment: Record<string, string | undefined>,
  feature: string,
  logger: Logger,
): { client: RuntimeRedis; ownsClient: boolean } | undefined {
  if (option !== undefined && option !== "" && typeof option !== "string") return { client: option, ownsClient: false };
  const topology = option ? redisTopologyFrom({ REDIS_URL: option }) : redisTopologyFrom(environment);
  if (topology === undefined) return undefined;
  const client = createRedisClient<RuntimeRedis>(topology, { feature, from: import.meta.url, logger });
  return { client, ownsClient: true };
}
