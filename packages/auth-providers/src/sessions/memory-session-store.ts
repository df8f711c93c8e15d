import type { AuthSession } from "../types.js";
import type { SessionStore } from "./session-store.js";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Sessions in this process (lost on restart), with a per-user index. Expired sessions are
 * dropped when touched and by a sweep every `sweepIntervalMs` (unref'd, so it never keeps
 * the process alive). Stored sessions are deep-frozen copies, handed out as they are: callers
 * cannot change them, and a read costs no copy (it is on every authenticated request).
 *
 * @example
 * const sessions = new SessionManager({ store: new MemorySessionStore(), ttlMs: 3_600_000 });
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, AuthSession>();
  readonly #byUser = new Map<string, Set<string>>();
  readonly #revoked = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: { sweepIntervalMs?: number } = {}) {
    this.#sweeper = setInterval(() => this.#sweep(), options.sweepIntervalMs ?? 60_000);
    this.#sweeper.unref();
  }

  #live(sessionId: string): AuthSession | undefined {
    const session = this.#sessions.get(sessionId);
    if (session && session.expiresAt <= Date.now()) {
      this.#remove(session);
      return undefined;
    }
    return session;
  }

  #remove(session: AuthSession): void {
    this.#sessions.delete(session.id);
    const ids = this.#byUser.get(session.userId);
    ids?.delete(session.id);
    if (ids?.size === 0) this.#byUser.delete(session.userId);
  }

  #sweep(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) if (session.expiresAt <= now) this.#remove(session);
    for (const [id, until] of this.#revoked) if (until <= now) this.#revoked.delete(id);
  }

  async revoke(sessionId: string, untilMs: number): Promise<void> {
    if (untilMs > Date.now()) this.#revoked.set(sessionId, untilMs);
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const until = this.#revoked.get(sessionId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#revoked.delete(sessionId);
    return false;
  }

  async get(sessionId: string): Promise<AuthSession | undefined> {
    return this.#live(sessionId);
  }

  peek(sessionId: string): AuthSession | undefined {
    return this.#live(sessionId);
  }

  async save(session: AuthSession, maxSessionsPerUser: number): Promise<string[]> {
    this.#sessions.set(session.id, deepFreeze(structuredClone(session)));
    let ids = this.#byUser.get(session.userId);
    if (!ids) {
      ids = new Set();
      this.#byUser.set(session.userId, ids);
    }
    ids.add(session.id);
    if (maxSessionsPerUser <= 0) return [];
    const others = this.#liveOf(session.userId).filter((other) => other.id !== session.id);
    const excess = others.length + 1 - maxSessionsPerUser;
    const evicted = excess > 0 ? others.slice(0, excess) : [];
    for (const other of evicted) this.#remove(other);
    return evicted.map((other) => other.id);
  }

  /** Oldest first. */
  #liveOf(userId: string): AuthSession[] {
    const ids = [...(this.#byUser.get(userId) ?? [])];
    return ids
      .map((id) => this.#live(id))
      .filter((session): session is AuthSession => session !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async delete(sessionId: string): Promise<boolean> {
    const session = this.#live(sessionId);
    if (!session) return false;
    this.#remove(session);
    return true;
  }

  async listByUser(userId: string): Promise<AuthSession[]> {
    return this.#liveOf(userId);
  }

  async deleteByUser(userId: string): Promise<number> {
    const sessions = this.#liveOf(userId);
    for (const session of sessions) this.#remove(session);
    return sessions.length;
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
  }

  /** Live sessions held (for tests and metrics). */
  get size(): number {
    return this.#sessions.size;
  }
}
