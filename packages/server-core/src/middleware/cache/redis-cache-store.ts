import { storeCall } from "../../errors/store-unavailable.js";
import { type RedisEvalClient, whenConnected } from "../redis-client.js";
import type { CacheEntry, CacheStore } from "./cache-store.js";

const GET = "return redis.call('GET', KEYS[1])";
const SET = "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1";
const DELETE = "return redis.call('DEL', KEYS[1])";

/**
 * Cached responses in Redis, shared by every server process; entries expire by Redis TTL
 * (eviction beyond that is Redis's `maxmemory-policy`). While Redis is unreachable every call
 * throws `StoreUnavailableError`; the cache middleware then serves without the cache.
 *
 * @example
 * createCacheMiddleware({ ttlMs: 60_000, store: new RedisCacheStore(new Redis(process.env.REDIS_URL!)) });
 */
export class RedisCacheStore implements CacheStore {
  constructor(
    private readonly client: RedisEvalClient,
    private readonly prefix = "conduit:cache:",
  ) {}

  private run(script: string, ...args: Array<string | number>): Promise<unknown> {
    const connecting = whenConnected(this.client, "cache");
    if (connecting) return connecting.then(() => this.run(script, ...args));
    return storeCall("cache", () => this.client.eval(script, 1, ...args));
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const raw = await this.run(GET, this.prefix + key);
    if (typeof raw !== "string") return undefined;
    try {
      return JSON.parse(raw) as CacheEntry;
    } catch {
      return undefined;
    }
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    await this.run(SET, this.prefix + key, JSON.stringify(entry), Math.max(1, Math.ceil(entry.ttlMs)));
  }

  async delete(key: string): Promise<void> {
    await this.run(DELETE, this.prefix + key);
  }
}
