import type { AuthSession } from "../types.js";

/**
 * Where sessions live. Implementations keep a per-user index beside the sessions and change
 * both together (atomically, for shared stores), so listing and evicting a user's sessions
 * never sees one without the other. Expired sessions are never returned.
 *
 * @example
 * const store: SessionStore = new MemorySessionStore(); // or RedisSessionStore, or your own
 */
export interface SessionStore {
  get(sessionId: string): Promise<AuthSession | undefined>;
  /** A synchronous `get` for stores in this process (memory): lets a session hit skip an await. */
  peek?(sessionId: string): AuthSession | undefined;
  /**
   * Writes the session (created or refreshed) until its `expiresAt`, indexes it under its user,
   * and, when `maxSessionsPerUser` > 0, destroys the user's oldest other sessions beyond it.
   * Returns the ids evicted.
   */
  save(session: AuthSession, maxSessionsPerUser: number): Promise<string[]>;
  /** True when it existed. */
  delete(sessionId: string): Promise<boolean>;
  /** The user's live sessions, oldest first. */
  listByUser(userId: string): Promise<AuthSession[]>;
  /** How many were destroyed. */
  deleteByUser(userId: string): Promise<number>;
  /**
   * Remembers until `untilMs` (epoch) that a destroyed session was signed out, so the same
   * credential cannot quietly open it again; `isRevoked` reads it.
   */
  revoke(sessionId: string, untilMs: number): Promise<void>;
  isRevoked(sessionId: string): Promise<boolean>;
  /** Releases connections the store opened itself. */
  close?(): Promise<void>;
  /** Throws when the store is unreachable (health checks). */
  ping?(): Promise<void>;
}

/** A stored session back from JSON: the shape is checked, since a shared store is outside our process. */
export function parseStoredSession(raw: string | null | undefined): AuthSession | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as AuthSession;
    if (
      typeof value?.id !== "string" ||
      typeof value.userId !== "string" ||
      typeof value.expiresAt !== "number" ||
      typeof value.user?.id !== "string"
    )
      return undefined;
    return value;
  } catch {
    return undefined;
  }
}
