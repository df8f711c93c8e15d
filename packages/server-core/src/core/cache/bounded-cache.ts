/** How a `BoundedCache` is sized and timed. */
export interface BoundedCacheOptions {
  /** Entries kept at most; past it the least recently used leaves first. 0 keeps nothing. */
  maxEntries: number;
  /** Lifetime of an entry when `set` names none (default: until evicted). */
  ttlMs?: number;
  /** The clock, in epoch ms (default `Date.now`, read at each call so fake timers apply). */
  now?: () => number;
}

/** When an entry set with `set` stops being served. */
export interface BoundedCacheEntryOptions {
  /** Lifetime from now; overrides the cache's `ttlMs`. */
  ttlMs?: number;
  /** Absolute deadline in epoch ms; wins over `ttlMs`. */
  expiresAt?: number;
}

interface Slot<V> {
  value: V;
  expiresAt: number;
}

/**
 * The one in-process cache of Conduit: at most `maxEntries` entries, the least recently used
 * evicted first, each with its own deadline (expired entries are dropped when read). A `Map`
 * iterates in insertion order, so moving an entry to the end on every read makes its order the
 * recency order — no linked list needed. Hand-written rather than `lru-cache` because this is
 * all the core needs and server-core's install footprint is budgeted.
 *
 * Keys are kept as given: a cache keyed by a token or any credential keys by `secretDigest(token)`.
 *
 * @example
 * const cache = new BoundedCache<string>({ maxEntries: 1000, ttlMs: 60_000 });
 * cache.set("a", "first");
 * cache.get("a"); // "first" (and "a" is now the most recently used)
 * cache.set("b", "second", { expiresAt: Date.now() + 5000 });
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, Slot<V>>();
  readonly #maxEntries: number;
  readonly #ttlMs: number | undefined;
  readonly #now: () => number;

  constructor(options: BoundedCacheOptions) {
    this.#maxEntries = Math.max(0, options.maxEntries);
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Entries held, expired ones not yet read included. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value, or undefined when absent or expired; a hit becomes the most recently used. */
  get(key: string): V | undefined {
    const slot = this.#entries.get(key);
    if (slot === undefined) return undefined;
    this.#entries.delete(key);
    if (slot.expiresAt <= this.#now()) return undefined;
    this.#entries.set(key, slot);
    return slot.value;
  }

  /** Whether `key` is held and not expired, without touching its recency. */
  has(key: string): boolean {
    const slot = this.#entries.get(key);
    return slot !== undefined && slot.expiresAt > this.#now();
  }

  /**
   * Stores `value` as the most recently used entry, evicting the least recently used past
   * `maxEntries`. A deadline already past removes the key instead (nothing stale is kept).
   */
  set(key: string, value: V, options: BoundedCacheEntryOptions = {}): void {
    this.#entries.delete(key);
    const ttlMs = options.ttlMs ?? this.#ttlMs;
    const expiresAt = options.expiresAt ?? (ttlMs === undefined ? Number.POSITIVE_INFINITY : this.#now() + ttlMs);
    if (this.#maxEntries === 0 || expiresAt <= this.#now()) return;
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt });
  }

  /** Forgets `key`; true when it was held. */
  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The keys held, least recently used first (for tests and diagnostics). */
  keys(): IterableIterator<string> {
    return this.#entries.keys();
  }
}
