import { BoundedCache, slotPrefix } from "@conduit-ai/server-core/internal";

/** One stored answer: its status, the headers worth replaying and its bytes as they were sent. */
export interface CachedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body's chunks, base64, in the order they went out (a stream replays as the same events). */
  chunks: string[];
  /** The model that served it and the usage it reported: what a hit saves. */
  model: string;
  savedUsd: number;
}

/** Where cached answers live: this process's memory or Redis. Failures reject; the cache treats them as a miss. */
export interface AnswerStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void>;
}

/** Answers in this process: at most `maxEntries`, the least recently used first out, each for its TTL. */
export class MemoryAnswerStore implements AnswerStore {
  readonly #entries: BoundedCache<CachedAnswer>;

  constructor(maxEntries: number) {
    this.#entries = new BoundedCache({ maxEntries });
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    return this.#entries.get(key);
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void> {
    this.#entries.set(key, answer, { ttlMs });
  }
}

/** What the Redis store needs of a client (ioredis `Redis` or `Cluster`). */
export interface AnswerStoreRedis {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

const GET = "return redis.call('GET', KEYS[1])";
// The entry, and its place in the index by time; past maxEntries the oldest go, entries and index
// together. Every key shares the prefix's hash tag: one slot, so this runs on Redis Cluster too.
const SET = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[2]))
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, over - 1)
  for _, key in ipairs(oldest) do redis.call('DEL', key) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`;

/**
 * Answers in Redis, shared by every process: under the server's prefix with one hash tag
 * (`{conduit:proxy:cache}:<hash>`), at most `maxEntries` (an index by time, trimmed on each
 * store) and each for its TTL.
 */
export class RedisAnswerStore implements AnswerStore {
  readonly #prefix: string;

  constructor(
    private readonly redis: AnswerStoreRedis,
    prefix: string,
    private readonly maxEntries: number,
  ) {
    this.#prefix = slotPrefix(`${prefix}cache:`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const text = await this.redis.eval(GET, 1, `${this.#prefix}${key}`);
    return typeof text === "string" ? (JSON.parse(text) as CachedAnswer) : undefined;
  }

  async set(key: string, answer: CachedAnswer, ttlMs: number): Promise<void> {
    await this.redis.eval(
      SET,
      2,
      `${this.#prefix}${key}`,
      `${this.#prefix}index`,
      JSON.stringify(answer),
      ttlMs,
      Date.now(),
      this.maxEntries,
    );
  }
}
