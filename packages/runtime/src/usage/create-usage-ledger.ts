import type { Logger } from "@conduit-ai/server-core";
import { runtimeRedis } from "../redis-client.js";
import type { RuntimeOptions } from "../runtime-options.js";
import { MemoryUsageLedger } from "./memory-usage-ledger.js";
import { RedisUsageLedger } from "./redis-usage-ledger.js";
import type { UsageLedger } from "./usage-ledger.js";

/**
 * The ledger from options: none with `usage: false`, Redis when `usage.redis`, `redis` or
 * the `REDIS_*` environment is set (so processes add up), else memory.
 */
export function createUsageLedger(
  options: RuntimeOptions,
  environment: Record<string, string | undefined>,
  logger: Logger,
): UsageLedger | undefined {
  if (options.usage === false) return undefined;
  const settings = options.usage ?? {};
  if (settings.ledger) return settings.ledger;
  const redis = runtimeRedis(settings.redis ?? options.redis, environment, "the Redis usage ledger (redis / REDIS_URL)", logger);
  if (redis === undefined) return new MemoryUsageLedger(settings);
  const { client, ownsClient } = redis;
  const keyPrefix = settings.keyPrefix ?? (environment.REDIS_KEY_PREFIX ? `${environment.REDIS_KEY_PREFIX}usage:` : "conduit:usage:");
  return new RedisUsageLedger(client, { ...settings, keyPrefix, ownsClient, logger });
}
