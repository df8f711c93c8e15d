import type { SessionInfo, SessionMessage, SessionMessagesPage } from "@conduit-ai/server-core";
import { type ConversationStore, normalizePage } from "./conversation-store.js";
import { type MemoryLimits, type ResolvedMemoryLimits, resolveMemoryLimits } from "./memory-limits.js";

interface StoredSession {
  id: string;
  createdAt: string;
  updatedAt: string;
  /** `Date.now()` of the last write: what the TTL and the eviction order go by. */
  touchedAt: number;
  messages: SessionMessage[];
  /** Approximate bytes held by `messages`. */
  bytes: number;
}

export interface InMemoryConversationStoreOptions extends MemoryLimits {
  /** Clock in ms (tests). */
  now?: () => number;
}

/** UTF-16 content plus a fixed allowance for the message object, role and timestamp. */
const MESSAGE_OVERHEAD_BYTES = 120;
function messageBytes(message: SessionMessage): number {
  return message.content.length * 2 + MESSAGE_OVERHEAD_BYTES;
}

/**
 * Process-local conversation memory (the default), bounded: at most `maxSessions` sessions and
 * `maxBytes` of content (the least recently written session goes first), `maxMessagesPerSession`
 * per session (oldest dropped), and a session unwritten for `ttlMs` is gone. Lost on restart;
 * use the Redis store to keep it.
 *
 * @example
 * const memory = new InMemoryConversationStore({ maxSessions: 5_000, ttlMs: 60 * 60_000 });
 * await memory.append("s1", [{ role: "user", content: "hi", timestamp: new Date().toISOString() }]);
 */
export class InMemoryConversationStore implements ConversationStore {
  /** Map order is write recency: a write re-inserts, so the first entry is the eviction candidate. */
  readonly #sessions = new Map<string, StoredSession>();
  readonly #limits: ResolvedMemoryLimits;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: InMemoryConversationStoreOptions = {}) {
    const { now, ...limits } = options;
    this.#limits = resolveMemoryLimits(limits);
    this.#now = now ?? Date.now;
  }

  /** Sessions held right now (expired ones not yet swept included). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Approximate bytes of message content held. */
  get bytes(): number {
    return this.#bytes;
  }

  async append(sessionId: string, messages: SessionMessage[]): Promise<void> {
    const now = this.#now();
    const iso = new Date(now).toISOString();
    const existing = this.#live(sessionId, now);
    const session: StoredSession = existing ?? { id: sessionId, createdAt: iso, updatedAt: iso, touchedAt: now, messages: [], bytes: 0 };
    this.#sessions.delete(sessionId);
    for (const message of messages) {
      session.messages.push(message);
      session.bytes += messageBytes(message);
    }
    const excess = session.messages.length - this.#limits.maxMessagesPerSession;
    if (excess > 0) for (const dropped of session.messages.splice(0, excess)) session.bytes -= messageBytes(dropped);
    this.#bytes += session.bytes - (existing?.bytes ?? 0);
    session.updatedAt = iso;
    session.touchedAt = now;
    this.#sessions.set(sessionId, session);
    this.#evict(now, sessionId);
  }

  async history(sessionId: string, limit?: number): Promise<SessionMessage[]> {
    const messages = this.#live(sessionId, this.#now())?.messages ?? [];
    return limit === undefined ? [...messages] : messages.slice(-limit);
  }

  async listSessions(): Promise<SessionInfo[]> {
    this.#sweep(this.#now());
    return [...this.#sessions.values()].reverse().map(toInfo);
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    const session = this.#live(id, this.#now());
    return session === undefined ? undefined : toInfo(session);
  }

  async getMessages(id: string, page?: { limit?: number; offset?: number }): Promise<SessionMessagesPage | undefined> {
    const session = this.#live(id, this.#now());
    if (session === undefined) return undefined;
    const { limit, offset } = normalizePage(page);
    return { sessionId: id, messages: session.messages.slice(offset, offset + limit), total: session.messages.length, limit, offset };
  }

  async deleteSession(id: string): Promise<boolean> {
    const session = this.#live(id, this.#now());
    if (session === undefined) return false;
    this.#remove(session);
    return true;
  }

  async clearSession(id: string): Promise<boolean> {
    const now = this.#now();
    const session = this.#live(id, now);
    if (session === undefined) return false;
    this.#bytes -= session.bytes;
    session.messages = [];
    session.bytes = 0;
    session.updatedAt = new Date(now).toISOString();
    // A write like any other: it refreshes the TTL and the eviction order.
    session.touchedAt = now;
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    return true;
  }

  /** The session unless it expired (an expired one is removed on the way). */
  #live(id: string, now: number): StoredSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined) return undefined;
    if (now - session.touchedAt < this.#limits.ttlMs) return session;
    this.#remove(session);
    return undefined;
  }

  #remove(session: StoredSession): void {
    this.#sessions.delete(session.id);
    this.#bytes -= session.bytes;
  }

  /** Expired sessions sit at the front (oldest writes first): stop at the first live one. */
  #sweep(now: number): void {
    for (const session of this.#sessions.values()) {
      if (now - session.touchedAt < this.#limits.ttlMs) break;
      this.#remove(session);
    }
  }

  /** Expired first, then the least recently written, until within bounds; `keep` (just written) goes last. */
  #evict(now: number, keep: string): void {
    this.#sweep(now);
    for (const session of this.#sessions.values()) {
      if (this.#sessions.size <= this.#limits.maxSessions && this.#bytes <= this.#limits.maxBytes) break;
      if (session.id === keep) break;
      this.#remove(session);
    }
  }
}

function toInfo(session: StoredSession): SessionInfo {
  return { id: session.id, messageCount: session.messages.length, createdAt: session.createdAt, updatedAt: session.updatedAt };
}
