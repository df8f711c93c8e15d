import type { CacheEntry, CacheStore } from "./cache-store.js";

/**
 * An in-process LRU: at most `maxSize` entries, the least recently used leaves first;
 * expired entries are dropped when read.
 *
 * @example
 * createCacheMiddleware({ ttlMs: 30_000, store: new MemoryCacheStore(5000) });
 */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(
    readonly maxSize = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.createdAt + entry.ttlMs <= this.now()) return undefined;
    // Re-inserting moves the key to the end: Map order is recency order.
    this.entries.set(key, entry);
    return entry;
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    this.entries.delete(key);
    while (this.entries.size >= this.maxSize) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async clear(): Promise<void> {
    this.entries.clear();
  }
}
