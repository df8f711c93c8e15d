import type { Logger } from "@conduit-ai/server-core";
import type { ConversationStore } from "./memory/conversation-store.js";
import { InMemoryConversationStore } from "./memory/in-memory-store.js";
import { resolveMemoryLimits } from "./memory/memory-limits.js";
import { memoryOptionsOf } from "./memory/memory-options.js";
import { RedisConversationStore } from "./memory/redis-store.js";
import { connectRedis } from "./redis-client.js";
import type { RuntimeOptions } from "./runtime-options.js";

/** The memory store from options: a custom store, else Redis (`redis` option or `REDIS_URL`), else in-memory. */
export function createMemory(options: RuntimeOptions, environment: Record<string, string | undefined>, logger: Logger): ConversationStore {
  const custom = memoryOptionsOf(options.memory).store;
  if (custom) return custom;
  const limits = resolveMemoryLimits(options.memoryLimits);
  const redis = options.redis ?? environment.REDIS_URL;
  if (redis === undefined || redis === "") return new InMemoryConversationStore(limits);
  const keyPrefix = options.redisKeyPrefix ?? environment.REDIS_KEY_PREFIX;
  const ownsClient = typeof redis === "string";
  // Fail commands fast while Redis is down (no offline queue, 1 s command timeout) so requests
  // answer 503 STORE_UNAVAILABLE and health reports down, instead of queueing until Redis returns.
  const client = typeof redis === "string" ? connectRedis(redis, "the Redis memory store (redis / REDIS_URL)") : redis;
  // ioredis reconnects by itself; an unhandled "error" event would crash the process, so log it instead.
  if (ownsClient) client.on("error", (error: Error) => logger.warn({ err: error }, "redis memory store error"));
  return new RedisConversationStore(client, {
    ownsClient,
    maxMessagesPerSession: limits.maxMessagesPerSession,
    ...(options.memoryLimits?.ttlMs === undefined ? {} : { ttlMs: limits.ttlMs }),
    ...(keyPrefix ? { keyPrefix } : {}),
  });
}
