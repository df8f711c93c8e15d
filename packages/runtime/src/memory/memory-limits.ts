/**
 * Bounds of conversation memory. An AI server keeps a session per `sessionId` a client sends,
 * so without bounds any client grows the process (or Redis) without end.
 */
export interface MemoryLimits {
  /** Sessions kept in process; the least recently written goes first (default 1 000; not applied to Redis). */
  maxSessions?: number;
  /** Messages kept per session; older ones are dropped (default 200; Redis too). */
  maxMessagesPerSession?: number;
  /** A session not written for this long is gone (default 24 h in process, 7 days in Redis, refreshed on every write). */
  ttlMs?: number;
  /** Approximate bytes of message content kept in process across all sessions (default 64 MiB; not applied to Redis). */
  maxBytes?: number;
}

export type ResolvedMemoryLimits = Required<MemoryLimits>;

export const DEFAULT_MEMORY_LIMITS: ResolvedMemoryLimits = Object.freeze({
  maxSessions: 1_000,
  maxMessagesPerSession: 200,
  ttlMs: 24 * 60 * 60 * 1000,
  maxBytes: 64 * 1024 * 1024,
});

/** Limits with defaults applied; a non-positive or non-numeric value is a configuration error. */
export function resolveMemoryLimits(limits: MemoryLimits = {}): ResolvedMemoryLimits {
  const resolved = { ...DEFAULT_MEMORY_LIMITS };
  for (const key of Object.keys(DEFAULT_MEMORY_LIMITS) as Array<keyof MemoryLimits>) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0))
      throw new RangeError(`memoryLimits.${key} must be a positive number (Infinity for no bound)`);
    resolved[key] = value;
  }
  return resolved;
}

/** Redis keeps sessions across restarts, so its default idle lifetime is longer than the process's 24 h. */
export const DEFAULT_REDIS_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
