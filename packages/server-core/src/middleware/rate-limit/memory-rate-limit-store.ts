import type { BucketCheck, BucketResult, RateLimitStore, WindowCheck, WindowResult } from "../../contracts/rate-limit-store.js";

interface WindowEntry {
  kind: "window";
  /** Sub-window index → count. */
  counts: Map<number, number>;
  expiresAt: number;
}

interface BucketEntry {
  kind: "bucket";
  tokens: number;
  updatedAt: number;
  expiresAt: number;
}

export interface MemoryRateLimitStoreOptions {
  /** Most keys kept (default 10 000); expired keys go first, then the least recently used. */
  maxKeys?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/**
 * The in-process store (the default): bounded, expired keys evicted, no timers.
 *
 * @example
 * createRateLimitMiddleware({ maxRequests: 100, windowMs: 60_000, store: new MemoryRateLimitStore({ maxKeys: 50_000 }) });
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, WindowEntry | BucketEntry>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  async hitWindow(key: string, check: WindowCheck): Promise<WindowResult> {
    return this.hitWindowNow(key, check);
  }

  /** `hitWindow` answered in the same turn (the limiter calls it so when the store is this class itself). */
  hitWindowNow(key: string, check: WindowCheck): WindowResult {
    const now = this.now();
    const subMs = check.windowMs / check.subWindows;
    const index = Math.floor(now / subMs);
    const oldest = index - check.subWindows + 1;
    const existing = this.take(key, now);
    const entry: WindowEntry = existing?.kind === "window" ? existing : { kind: "window", counts: new Map(), expiresAt: 0 };
    let count = 0;
    let first: number | undefined;
    for (const [slot, slotCount] of entry.counts) {
      if (slot < oldest) entry.counts.delete(slot);
      else {
        count += slotCount;
        if (first === undefined || slot < first) first = slot;
      }
    }
    const allowed = count < check.maxRequests;
    if (allowed) {
      entry.counts.set(index, (entry.counts.get(index) ?? 0) + 1);
      count++;
      first ??= index;
    }
    entry.expiresAt = (index + check.subWindows) * subMs;
    this.put(key, entry);
    return { allowed, count, resetMs: Math.max(0, Math.ceil(((first ?? index) + check.subWindows) * subMs - now)) };
  }

  async takeToken(key: string, check: BucketCheck): Promise<BucketResult> {
    const now = this.now();
    const rate = check.capacity / check.windowMs;
    const existing = this.take(key, now);
    const previous = existing?.kind === "bucket" ? existing : undefined;
    let tokens = previous ? Math.min(check.capacity, previous.tokens + (now - previous.updatedAt) * rate) : check.capacity;
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.put(key, { kind: "bucket", tokens, updatedAt: now, expiresAt: now + check.windowMs });
    return {
      allowed,
      tokens,
      retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / rate),
      resetMs: Math.ceil((check.capacity - tokens) / rate),
    };
  }

  /** Removes and returns a live entry (re-inserted by `put`, which keeps Map order = recency). */
  private take(key: string, now: number): WindowEntry | BucketEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    return entry.expiresAt > now ? entry : undefined;
  }

  private put(key: string, entry: WindowEntry | BucketEntry): void {
    if (this.entries.size >= this.maxKeys) this.evict(this.now());
    this.entries.set(key, entry);
  }

  private evict(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full: drop the least recently used (the Map's first keys) down to 90%, so the scan is rare.
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.maxKeys * 0.9) break;
      this.entries.delete(key);
    }
  }
}
