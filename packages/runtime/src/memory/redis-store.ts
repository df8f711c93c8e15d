import type { SessionInfo, SessionMessage, SessionMessagesPage } from "@conduit-ai/server-core";
import type { Redis } from "ioredis";
import { type ConversationStore, normalizePage } from "./conversation-store.js";

export interface RedisConversationStoreOptions {
  /** Prepended to every key; default `conduit:memory:`. */
  keyPrefix?: string;
  /** Close the client on `close()` (true when the runtime created it). */
  ownsClient?: boolean;
}

/**
 * Conversation memory in Redis, shared by every instance and surviving restarts.
 * Keys: `<prefix>sessions` (sorted set by last update, so listing needs no SCAN),
 * `<prefix>session:<id>` (hash of timestamps) and `<prefix>messages:<id>` (list of JSON messages).
 *
 * @example
 * const memory = new RedisConversationStore(new Redis(process.env.REDIS_URL), { keyPrefix: "app:memory:" });
 */
export class RedisConversationStore implements ConversationStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;

  constructor(redis: Redis, options: RedisConversationStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix ?? "conduit:memory:";
    this.#ownsClient = options.ownsClient ?? false;
  }

  #key(kind: "sessions" | "session" | "messages", id?: string): string {
    return id === undefined ? `${this.#prefix}${kind}` : `${this.#prefix}${kind}:${id}`;
  }

  async append(sessionId: string, messages: SessionMessage[]): Promise<void> {
    const now = new Date();
    const transaction = this.#redis.multi();
    if (messages.length > 0) transaction.rpush(this.#key("messages", sessionId), ...messages.map((message) => JSON.stringify(message)));
    transaction.hsetnx(this.#key("session", sessionId), "createdAt", now.toISOString());
    transaction.hset(this.#key("session", sessionId), "updatedAt", now.toISOString());
    transaction.zadd(this.#key("sessions"), now.getTime(), sessionId);
    await transaction.exec();
  }

  async history(sessionId: string, limit?: number): Promise<SessionMessage[]> {
    const raw = await this.#redis.lrange(this.#key("messages", sessionId), limit === undefined ? 0 : -limit, -1);
    return raw.map((item) => JSON.parse(item) as SessionMessage);
  }

  async listSessions(): Promise<SessionInfo[]> {
    const ids = await this.#redis.zrevrange(this.#key("sessions"), 0, -1);
    const sessions = await Promise.all(ids.map((id) => this.getSession(id)));
    return sessions.filter((session): session is SessionInfo => session !== undefined);
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const [hash, count] = await Promise.all([this.#redis.hgetall(this.#key("session", id)), this.#redis.llen(this.#key("messages", id))]);
    if (hash.createdAt === undefined) return undefined;
    return { id, messageCount: count, createdAt: hash.createdAt, updatedAt: hash.updatedAt ?? hash.createdAt };
  }

  async getMessages(id: string, page?: { limit?: number; offset?: number }): Promise<SessionMessagesPage | undefined> {
    const session = await this.getSession(id);
    if (session === undefined) return undefined;
    const { limit, offset } = normalizePage(page);
    const raw = await this.#redis.lrange(this.#key("messages", id), offset, offset + limit - 1);
    const messages = raw.map((item) => JSON.parse(item) as SessionMessage);
    return { sessionId: id, messages, total: session.messageCount, limit, offset };
  }

  async deleteSession(id: string): Promise<boolean> {
    const [[, removed] = [null, 0]] = (await this.#redis
      .multi()
      .zrem(this.#key("sessions"), id)
      .del(this.#key("session", id), this.#key("messages", id))
      .exec()) ?? [[null, 0]];
    return Number(removed) > 0;
  }

  async clearSession(id: string): Promise<boolean> {
    if ((await this.getSession(id)) === undefined) return false;
    await this.#redis
      .multi()
      .del(this.#key("messages", id))
      .hset(this.#key("session", id), "updatedAt", new Date().toISOString())
      .exec();
    return true;
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    // QUIT waits for a reply, which never comes from a server that is down.
    if (this.#redis.status === "ready") await this.#redis.quit().catch(() => this.#redis.disconnect());
    else this.#redis.disconnect();
  }
}
