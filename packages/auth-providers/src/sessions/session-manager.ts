import { createHash, randomBytes } from "node:crypto";
import type { AuthSessionSource } from "@conduit-ai/auth";
import { BoundedCache } from "@conduit-ai/server-core/internal";
import { SessionExpiredError, SessionNotFoundError } from "../errors/auth-errors.js";
import type { AuthSession, AuthenticatedUser, CreateSessionOptions } from "../types.js";
import { MemorySessionStore } from "./memory-session-store.js";
import type { SessionStore } from "./session-store.js";

export interface SessionManagerOptions {
  /** Default: a `MemorySessionStore` (this process only). */
  store?: SessionStore;
  /** Session lifetime. Default 24 h. */
  ttlMs?: number;
  /** A session used with less than this left is extended to a full `ttlMs`. Default a quarter of `ttlMs`. */
  refreshThresholdMs?: number;
  /** Creating one more evicts the user's oldest; 0 = no limit. Default 10. */
  maxSessionsPerUser?: number;
  /** `lastAccessedAt` is written at most this often per session (a write per request would cost a store round trip). Default 60 000. */
  touchIntervalMs?: number;
  /** Provider type recorded on sessions and errors. */
  provider?: string;
}

/** The session id bound to a credential: the same user and binding always give the same id, which says nothing about the credential. */
export function boundSessionId(provider: string, userId: string, binding: string): string {
  return createHash("sha256").update(`conduit-session\0${provider}\0${userId}\0${binding}`).digest("base64url");
}

/** The user as sessions keep it: without the token's claims (they can hold anything). */
function storedUser(user: AuthenticatedUser): AuthenticatedUser {
  const { metadata, ...rest } = user;
  const kept = metadata ? Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== "claims")) : undefined;
  return kept && Object.keys(kept).length > 0 ? { ...rest, metadata: kept } : rest;
}

/**
 * Creates, finds, refreshes and destroys sessions on any `SessionStore`. A session found
 * with less than `refreshThresholdMs` left is extended; creating one beyond
 * `maxSessionsPerUser` evicts the user's oldest; a destroyed session bound to a credential
 * stays signed out until that credential expires.
 *
 * @example
 * const sessions = new SessionManager({ store: await RedisSessionStore.connect(url), ttlMs: 3_600_000, maxSessionsPerUser: 5 });
 * const session = await sessions.create(user);
 * await sessions.destroyAllUserSessions(user.id); // sign out everywhere
 */
export class SessionManager implements AuthSessionSource {
  readonly store: SessionStore;
  readonly ttlMs: number;
  readonly refreshThresholdMs: number;
  readonly maxSessionsPerUser: number;
  readonly #touchIntervalMs: number;
  readonly #provider: string;
  /** Bound ids already derived (bounded, least recently used out first): resolving one is on every authenticated request. */
  readonly #boundIds = new BoundedCache<string>({ maxEntries: 10_000 });

  constructor(options: SessionManagerOptions = {}) {
    this.store = options.store ?? new MemorySessionStore();
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.refreshThresholdMs = options.refreshThresholdMs ?? Math.floor(this.ttlMs / 4);
    this.maxSessionsPerUser = options.maxSessionsPerUser ?? 10;
    this.#touchIntervalMs = options.touchIntervalMs ?? 60_000;
    this.#provider = options.provider ?? "custom";
    if (!(this.ttlMs > 0)) throw new RangeError("SessionManager: ttlMs must be positive");
  }

  async create(user: AuthenticatedUser, options: CreateSessionOptions = {}): Promise<AuthSession> {
    const now = Date.now();
    const session: AuthSession = {
      id: options.binding === undefined ? randomBytes(32).toString("base64url") : boundSessionId(this.#provider, user.id, options.binding),
      userId: user.id,
      user: storedUser(user),
      provider: this.#provider,
      createdAt: now,
      expiresAt: now + this.ttlMs,
      lastAccessedAt: now,
      ...(options.metadata ? { metadata: options.metadata } : {}),
    };
    await this.store.save(session, this.maxSessionsPerUser);
    return session;
  }

  get(sessionId: string): Promise<AuthSession | undefined> {
    return this.store.get(sessionId);
  }

  /** Extends the session to a full `ttlMs` from now; `SessionNotFoundError` when it is gone. */
  async refresh(sessionId: string): Promise<AuthSession> {
    const session = await this.store.get(sessionId);
    if (!session) throw new SessionNotFoundError(this.#provider);
    return this.#write(session, Date.now(), true);
  }

  async #write(session: AuthSession, now: number, extend: boolean): Promise<AuthSession> {
    const updated = { ...session, lastAccessedAt: now, ...(extend ? { expiresAt: now + this.ttlMs } : {}) };
    await this.store.save(updated, 0);
    return updated;
  }

  /**
   * The session bound to this credential, reused (and refreshed when near its end) or
   * created. Refuses with `SessionExpiredError` when that session was signed out.
   *
   * @example
   * const session = await sessions.resolve(user, claims.sid ?? tokenDigest);
   */
  async resolve(user: AuthenticatedUser, binding: string): Promise<AuthSession> {
    const id = this.#idFor(user.id, binding);
    const existing = await this.store.get(id);
    const now = Date.now();
    if (existing && existing.userId === user.id) {
      const nearEnd = existing.expiresAt - now < this.refreshThresholdMs;
      if (nearEnd || now - existing.lastAccessedAt >= this.#touchIntervalMs) return this.#write(existing, now, nearEnd);
      return existing;
    }
    if (await this.store.isRevoked(id)) throw new SessionExpiredError(this.#provider, "Session was signed out");
    return this.create(user, { binding });
  }

  #idFor(userId: string, binding: string): string {
    const key = `${userId}\0${binding}`;
    let id = this.#boundIds.get(key);
    if (id === undefined) {
      id = boundSessionId(this.#provider, userId, binding);
      this.#boundIds.set(key, id);
    }
    return id;
  }

  /**
   * `resolve` without an await, for stores that can `peek`: the bound session when it exists
   * and needs no write (not near its end, touched recently); undefined otherwise (then `resolve`).
   */
  resolveCached(user: AuthenticatedUser, binding: string): AuthSession | undefined {
    if (!this.store.peek) return undefined;
    const existing = this.store.peek(this.#idFor(user.id, binding));
    if (!existing || existing.userId !== user.id) return undefined;
    const now = Date.now();
    if (existing.expiresAt - now < this.refreshThresholdMs || now - existing.lastAccessedAt >= this.#touchIntervalMs) return undefined;
    return existing;
  }

  /** Destroys a session; a credential bound to it cannot reopen it until `revokeUntil` (default: a full ttl from now). */
  async destroy(sessionId: string, revokeUntil = Date.now() + this.ttlMs): Promise<boolean> {
    const existed = await this.store.delete(sessionId);
    if (existed) await this.store.revoke(sessionId, revokeUntil);
    return existed;
  }

  getUserSessions(userId: string): Promise<AuthSession[]> {
    return this.store.listByUser(userId);
  }

  /** Destroys the session only when it belongs to `userId` (another user's id is "not found"). */
  async destroyUserSession(userId: string, sessionId: string): Promise<boolean> {
    const session = await this.store.get(sessionId);
    if (!session || session.userId !== userId) return false;
    return this.destroy(sessionId);
  }

  async destroyAllUserSessions(userId: string): Promise<number> {
    const sessions = await this.store.listByUser(userId);
    const count = await this.store.deleteByUser(userId);
    const until = Date.now() + this.ttlMs;
    await Promise.all(sessions.map((session) => this.store.revoke(session.id, until)));
    return count;
  }

  close(): Promise<void> {
    return this.store.close?.() ?? Promise.resolve();
  }
}
