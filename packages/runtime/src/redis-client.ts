import { loadOptionalDependency } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/middleware";
import type { Redis } from "ioredis";

/**
 * A fail-fast ioredis client for `url` (no offline queue, 1 s command timeout), so requests
 * answer 503 STORE_UNAVAILABLE while Redis is down instead of queueing. ioredis is an optional
 * peer loaded here, only when a Redis URL is configured; absent, `MissingDependencyError`
 * names the install line.
 */
export function connectRedis(url: string, feature: string): Redis {
  const { Redis: RedisClient } = loadOptionalDependency<typeof import("ioredis")>("ioredis", { feature, from: import.meta.url });
  return new RedisClient(url, { ...FAIL_FAST_REDIS_OPTIONS });
}
