import { type SessionInfo, type SessionMessage, type SessionMessagesPage, storeCall } from "@conduit-ai/server-core";
import { closeRedis } from "@conduit-ai/server-core/middleware";
import { type PingableRedis, pingRedis, slotPrefix, whenConnected } from "@conduit-ai/server-core/internal";
import type { RuntimeRedis } from "../redis-client.js";
import { type ConversationStore, normalizePage } from "./conversation-store.js";
import { DEFAULT_MEMORY_LIMITS, DEFAULT_REDIS_SESSION_TTL_MS, type MemoryLimits } from "./memory-limits.js";

export interface RedisConversationStoreOptions extends Pick<MemoryLimits, "maxMessagesPerSession" | "ttlMs"> {
  /** Prepended to every key; default `conduit:memory:`. */
  keyPrefix?: string;
  /** Close the client on `close()` (true when the runtime created it). */
  ownsClient?: boolean;
}

/**
 * Conversation memory in Redis, shared by every instance and surviving restarts.
 * Keys, all under one hash tag made of the prefix (`{conduit:memory}:…`, see `slotPrefix`) so
 * each transaction runs in one Redis Cluster slot: `…sessions` (sorted set by last write, so
 * listing needs no SCAN), `…session:<id>` (hash of timestamps) and `…messages:<id>` (list of
 * JSON messages). Works on one server, sentinel or a cluster (`Redis` or `Cluster` client).
 * Bounded: a session's keys expire `ttlMs` after its last write (every write refreshes them),
 * its list keeps the last `maxMessagesPerSession` messages, and expired ids leave the index on
 * the next write or listing. While Redis is unreachable every call throws 503 `STORE_UNAVAILABLE`.
 *
 * @example
 * const memory = new RedisConversationStore(new Redis(process.env.REDIS_URL, FAIL_FAST_REDIS_OPTIONS), { keyPrefix: "app:memory:", ttlMs: 7 * 86_400_000 });
 */
export class RedisConversationStore implements ConversationStore {
  readonly #redis: RuntimeRedis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;
  readonly #maxMessages: number;
  readonly #ttlMs: number;

  constructor(redis: RuntimeRedis, options: RedisConversationStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = slotPrefix(options.keyPrefix ?? "conduit:memory:");
    this.#ownsClient = options.ownsClient ?? false;
    this.#maxMessages = options.maxMessagesPerSession ?? DEFAULT_MEMORY_LIMITS.maxMessagesPerSession;
    this.#ttlMs = options.ttlMs ?? DEFAULT_REDIS_SESSION_TTL_MS;
  }

  /** One store operation: waits out the first connection, fails fast after a loss, any failure → 503 `STORE_UNAVAILABLE`. */
  async #call<T>(operation: () => Promise<T>): Promise<T> {
    await whenConnected(this.#redis, "memory");
    return storeCall("memory", operation);
  }

  #key(kind: "sessions" | "session" | "messages", id?: string): string {
    return id === undefined ? `${this.#prefix}${kind}` : `${this.#prefix}${kind}:${id}`;
  }

  /** Index scores older than this belong to expired sessions. */
  #oldestLive(now: number): number {
    return Number.isFinite(this.#ttlMs) ? now - this.#ttlMs : Number.NEGATIVE_INFINITY;
  }

  /** Queues the TTL refresh of a session's keys (and of the index, so an idle prefix vanishes too). */
  #refresh(transaction: ReturnType<RuntimeRedis["multi"]>, sessionId: string, now: number): void {
    if (!Number.isFinite(this.#ttlMs)) return;
    const ttl = Math.max(1, Math.ceil(this.#ttlMs));
    transaction.pexpire(this.#key("session", sessionId), ttl);
    transaction.pexpire(this.#key("messages", sessionId), ttl);
    transaction.pexpire(this.#key("sessions"), ttl);
    transaction.zremrangebyscore(this.#key("sessions"), "-inf", `(${this.#oldestLive(now)}`);
  }

  async append(sessionId: string, messages: SessionMessage[]): Promise<void> {
    const now = new Date();
    const transaction = this.#redis.multi();
    if (messages.length > 0) {
      transaction.rpush(this.#key("messages", sessionId), ...messages.map((message) => JSON.stringify(message)));
      if (Number.isFinite(this.#maxMessages)) transaction.ltrim(this.#key("messages", sessionId), -this.#maxMessages, -1);
    }
    transaction.hsetnx(this.#key("session", sessionId), "createdAt", now.toISOString());
    transaction.hset(this.#key("session", sessionId), "updatedAt", now.toISOString());
    transaction.zadd(this.#key("sessions"), now.getTime(), sessionId);
    this.#refresh(transaction, sessionId, now.getTime());
    await this.#call(() => transaction.exec());
  }

  async history(sessionId: string, limit?: number): Promise<SessionMessage[]> {
    const raw = await this.#call(() => this.#redis.lrange(this.#key("messages", sessionId), limit === undefined ? 0 : -limit, -1));
    return raw.map((item) => JSON.parse(item) as SessionMessage);
  }

  async listSessions(): Promise<SessionInfo[]> {
    const ids = await this.#call(() => this.#redis.zrevrangebyscore(this.#key("sessions"), "+inf", this.#oldestLive(Date.now())));
    const sessions = await Promise.all(ids.map((id) => this.getSession(id)));
    return sessions.filter((session): session is SessionInfo => session !== undefined);
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const [hash, count] = await this.#call(() =>
      Promise.all([this.#redis.hgetall(this.#key("session", id)), this.#redis.llen(this.#key("messages", id))]),
    );
    if (hash.createdAt === undefined) return undefined;
    return { id, messageCount: count, createdAt: hash.createdAt, updatedAt: hash.updatedAt ?? hash.createdAt };
  }

  async getMessages(id: string, page?: { limit?: number; offset?: number }): Promise<SessionMessagesPage | undefined> {
    const session = await this.getSession(id);
    if (session === undefined) return undefined;
    const { limit, offset } = normalizePage(page);
    const raw = await this.#call(() => this.#redis.lrange(this.#key("messages", id), offset, offset + limit - 1));
    const messages = raw.map((item) => JSON.parse(item) as SessionMessage);
    return { sessionId: id, messages, total: session.messageCount, limit, offset };
  }

  async deleteSession(id: string): Promise<boolean> {
    const results = await this.#call(() =>
      this.#redis.multi().zrem(this.#key("sessions"), id).del(this.#key("session", id), this.#key("messages", id)).exec(),
    );
    // Removed from the index or had keys: an expired session has neither.
    return (results ?? []).some(([, count]) => Number(count) > 0);
  }

  async clearSession(id: string): Promise<boolean> {
    if ((await this.getSession(id)) === undefined) return false;
    const now = new Date();
    const transaction = this.#redis
      .multi()
      .del(this.#key("messages", id))
      .hset(this.#key("session", id), "updatedAt", now.toISOString())
      .zadd(this.#key("sessions"), now.getTime(), id);
    this.#refresh(transaction, id, now.getTime());
    await this.#call(() => transaction.exec());
    return true;
  }

  async ping(): Promise<void> {
    await this.#call(() => pingRedis(this.#redis as PingableRedis));
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await closeRedis(this.#redis);
  }
}
