/** An upstream server's part of a session: its own session, as the gateway negotiated it. */
export interface UpstreamSessionState {
  /** The upstream's `Mcp-Session-Id` (Streamable HTTP), so another process can continue it. */
  sessionId?: string;
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
}

/** One client session (`Mcp-Session-Id`) as every process sees it. */
export interface McpSessionRecord {
  id: string;
  /** Who opened it (`key:<id>`, `oauth:<sub>`, …): a request of anyone else does not find it. */
  principal: string;
  /** The protocol revision negotiated at `initialize`. */
  protocolVersion: string;
  clientInfo?: { name: string; version: string };
  clientCapabilities?: Record<string, unknown>;
  createdAt: number;
  /** `logging/setLevel`, re-applied to upstreams a process connects afresh. */
  logLevel?: string;
  upstream: Record<string, UpstreamSessionState>;
  /** Namespaced resource URIs the client subscribed to, re-applied likewise. */
  subscriptions: string[];
}

/** The part of a record fixed at `initialize`. */
export type McpSessionCore = Omit<McpSessionRecord, "upstream" | "subscriptions" | "logLevel">;

/**
 * Where sessions live: this process's memory (one process; the default without Redis) or Redis
 * (every process behind a load balancer continues every session). Every operation on a session
 * that expired or was deleted is a no-op: nothing is ever recreated by a late write.
 */
export interface McpSessionStore {
  readonly kind: "memory" | "redis";
  create(core: McpSessionCore, ttlMs: number): Promise<void>;
  /** The session with its idle expiry pushed back to `ttlMs` from now; undefined when unknown or expired. */
  touch(id: string, ttlMs: number): Promise<McpSessionRecord | undefined>;
  setUpstream(id: string, server: string, state: UpstreamSessionState): Promise<void>;
  setSubscription(id: string, uri: string, subscribed: boolean): Promise<void>;
  setLogLevel(id: string, level: string): Promise<void>;
  /** True when it existed. */
  delete(id: string): Promise<boolean>;
}

interface MemoryEntry {
  record: McpSessionRecord;
  expiresAt: number;
}

/**
 * Sessions in this process, bounded (the least recently used go first past `maxSessions`) and
 * expiring when idle. A session lives only on the process that opened it: behind a load balancer
 * without sticky sessions, use the Redis store.
 *
 * @example
 * const store = new MemorySessionStore({ maxSessions: 10_000 });
 */
export class MemorySessionStore implements McpSessionStore {
  readonly kind = "memory" as const;
  readonly #sessions = new Map<string, MemoryEntry>();
  readonly #maxSessions: number;

  constructor(options: { maxSessions?: number } = {}) {
    this.#maxSessions = options.maxSessions ?? 10_000;
  }

  #live(id: string): MemoryEntry | undefined {
    const entry = this.#sessions.get(id);
    if (entry && entry.expiresAt <= Date.now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    return entry;
  }

  async create(core: McpSessionCore, ttlMs: number): Promise<void> {
    this.#sessions.set(core.id, { record: { ...core, upstream: {}, subscriptions: [] }, expiresAt: Date.now() + ttlMs });
    if (this.#sessions.size > this.#maxSessions) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
  }

  async touch(id: string, ttlMs: number): Promise<McpSessionRecord | undefined> {
    const entry = this.#live(id);
    if (!entry) return undefined;
    entry.expiresAt = Date.now() + ttlMs;
    // Re-inserted: Map order is the eviction order (least recently used first).
    this.#sessions.delete(id);
    this.#sessions.set(id, entry);
    return structuredClone(entry.record);
  }

  async setUpstream(id: string, server: string, state: UpstreamSessionState): Promise<void> {
    const entry = this.#live(id);
    if (entry) entry.record.upstream[server] = { ...state };
  }

  async setSubscription(id: string, uri: string, subscribed: boolean): Promise<void> {
    const entry = this.#live(id);
    if (!entry) return;
    const others = entry.record.subscriptions.filter((item) => item !== uri);
    entry.record.subscriptions = subscribed ? [...others, uri] : others;
  }

  async setLogLevel(id: string, level: string): Promise<void> {
    const entry = this.#live(id);
    if (entry) entry.record.logLevel = level;
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.#live(id) !== undefined;
    this.#sessions.delete(id);
    return existed;
  }
}
