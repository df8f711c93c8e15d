import { ConfigurationError } from "@conduit-ai/server-core";
import type { ProxyConfig } from "../config.js";
import { type AnswerStoreRedis, MemoryAnswerStore, RedisAnswerStore } from "./cache-stores.js";
import { ResponseCache } from "./response-cache.js";

/**
 * The proxy's response cache from `proxy.cache`, or undefined when the config has none:
 * memory (this process) or Redis (every process, under `redisPrefix`).
 *
 * @example
 * const cache = responseCacheOf(config, { redis, redisPrefix: "conduit:proxy:" });
 */
export function responseCacheOf(
  config: ProxyConfig,
  options: { redis?: AnswerStoreRedis | undefined; redisPrefix?: string | undefined; onWarning?: ((message: string) => void) | undefined },
): ResponseCache | undefined {
  const settings = config.cache;
  if (!settings) return undefined;
  if (settings.store === "redis" && !options.redis)
    throw new ConfigurationError('proxy.cache.store is "redis" but no Redis client was given (createProxy(config, { redis }))');
  const store =
    settings.store === "redis" && options.redis
      ? new RedisAnswerStore(options.redis, options.redisPrefix ?? "conduit:proxy:", settings.maxEntries)
      : new MemoryAnswerStore(settings.maxEntries);
  return new ResponseCache({
    store,
    ttlMs: settings.ttlSeconds * 1000,
    maxEntryBytes: settings.maxEntryBytes,
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}
