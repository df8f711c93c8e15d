import type { Logger } from "@conduit-ai/server-core";
import type { ConversationStore } from "./memory/conversation-store.js";
import { InMemoryConversationStore } from "./memory/in-memory-store.js";
import { resolveMemoryLimits } from "./memory/memory-limits.js";
import { RedisConversationStore } from "./memory/redis-store.js";
import { runtimeRedis } from "./redis-client.js";
import type { RuntimeOptions } from "./runtime-options.js";

/** The memory store from options: a custom store, else Redis (`redis` option or the `REDIS_*` environment), else in-memory. */
export function createMemory(options: RuntimeOptions, environment: Record<string, string | undefined>, logger: Logger): ConversationStore {
  if (options.memory) return options.memory;
  const limits = resolveMemoryLimits(options.memoryLimits);
  // server-core's factory: fail fast while Redis is down (503 STORE_UNAVAILABLE, health down), recover by itself.
  const redis = runtimeRedis(options.redis, environment, "the Redis memory store (redis / REDIS_URL)", logger);
  if (redis === undefined) return new InMemoryConversationStore(limits);
  const keyPrefix = options.redisKeyPrefix ?? environment.REDIS_KEY_PREFIX;
  const { client, ownsClient } = redis;
  return new RedisConversationStore(client, {
    ownsClient,
    maxMessagesPerSession: limits.maxMessagesPerSession,
    ...(options.memoryLimits?.ttlMs === undefined ? {} : { ttlMs: limits.ttlMs }),
    ...(keyPrefix ? { keyPrefix } : {}),
  });
}
