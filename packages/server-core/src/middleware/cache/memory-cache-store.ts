import { BoundedCache } from "../../core/cache/bounded-cache.js";
import type { CacheEntry, CacheStore } from "./cache-store.js";

/**
 * An in-process LRU: at most `maxSize` entries, the least recently used leaves first;
 * expired entries are dropped when read. Keys are the cache middleware's (method, path, query,
 * user id), never a credential: a request with credentials but no user is not cached at all.
 *
 * @example
 * createCacheMiddleware({ ttlMs: 30_000, store: new MemoryCacheStore(5000) });
 */
export class MemoryCacheStore implements CacheStore {
  private readonly entries: BoundedCache<CacheEntry>;

  constructor(
    readonly maxSize = 1000,
    now: () => number = Date.now,
  ) {
    this.entries = new BoundedCache({ maxEntries: maxSize, now });
  }

  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    return this.entries.get(key);
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    this.entries.set(key, entry, { expiresAt: entry.createdAt + entry.ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async clear(): Promise<void> {
    this.entries.clear();
  }
}
