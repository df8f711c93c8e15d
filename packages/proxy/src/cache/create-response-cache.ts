import { ConfigurationError } from "@conduit-ai/server-core";
import type { ProxyConfig } from "../config.js";
import { type AnswerStoreRedis, MemoryAnswerStore, RedisAnswerStore } from "./cache-stores.js";
import { ResponseCache } from "./response-cache.js";

/** `proxy.cache` when the config has none: what keys and teams with `cache: true` use. */
const OPT_IN_DEFAULTS = { store: "memory" as const, ttlSeconds: 300, maxEntryBytes: 1024 * 1024, maxEntries: 1000 };

/**
 * The proxy's response cache from `proxy.cache` — on for every call — or, without one, an
 * in-memory cache with the defaults that only keys and teams with `cache: true` use. Memory
 * (this process) or Redis (every process, under `redisPrefix`).
 *
 * @example
 * const cache = responseCacheOf(config, { redis, redisPrefix: "conduit:proxy:" });
 */
export function responseCacheOf(
  config: ProxyConfig,
  options: { redis?: AnswerStoreRedis | undefined; redisPrefix?: string | undefined; onWarning?: ((message: string) => void) | undefined },
): ResponseCache {
  const settings = config.cache ?? OPT_IN_DEFAULTS;
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
    enabledByDefault: config.cache !== undefined,
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}
