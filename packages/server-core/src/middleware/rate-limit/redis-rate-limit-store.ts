import { storeCall } from "../../errors/store-unavailable.js";
import { type RedisEvalClient, runScript, whenConnected } from "../redis-client.js";
import { type PingableRedis, pingRedis } from "../redis/ping-redis.js";
import type { BucketCheck, BucketResult, RateLimitStore, WindowCheck, WindowResult } from "../../contracts/rate-limit-store.js";

/*
 * Each check is ONE Lua script, so the read, the decision and the write are atomic on the
 * Redis server, and the clock is Redis's (TIME) — servers with skewed clocks still agree.
 */
const WINDOW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local max = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local subWindows = tonumber(ARGV[3])
local subMs = windowMs / subWindows
local index = math.floor(now / subMs)
local oldest = index - subWindows + 1
local fields = redis.call('HGETALL', KEYS[1])
local count = 0
local first = nil
for i = 1, #fields, 2 do
  local slot = tonumber(fields[i])
  if slot < oldest then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    count = count + tonumber(fields[i + 1])
    if first == nil or slot < first then first = slot end
  end
end
local allowed = 0
if count < max then
  redis.call('HINCRBY', KEYS[1], string.format('%d', index), 1)
  count = count + 1
  allowed = 1
  if first == nil then first = index end
end
if first == nil then first = index end
redis.call('PEXPIRE', KEYS[1], math.ceil(windowMs + subMs))
return {allowed, count, math.ceil((first + subWindows) * subMs - now)}
`;

const BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local capacity = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local rate = capacity / windowMs
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updatedAt')
local tokens = tonumber(state[1])
local updatedAt = tonumber(state[2])
if tokens == nil or updatedAt == nil then
  tokens = capacity
  updatedAt = now
end
tokens = math.min(capacity, tokens + math.max(0, now - updatedAt) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'updatedAt', string.format('%.3f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(windowMs))
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / rate) end
return {allowed, string.format('%.6f', tokens), retry, math.ceil((capacity - tokens) / rate)}
`;

export interface RedisRateLimitStoreOptions {
  /** Prefix of every key (default `conduit:ratelimit:`). */
  prefix?: string;
}

/**
 * Redis-backed counters shared by every server process: one atomic Lua script per check, in
 * one round trip (`EVALSHA`; the script's body is sent again only after a `NOSCRIPT`).
 * While Redis is unreachable every check throws `StoreUnavailableError` (503
 * `STORE_UNAVAILABLE`), at once when the client reports it is disconnected; the limiter's
 * `failOpen` decides what the request gets. Build the client with `FAIL_FAST_REDIS_OPTIONS`
 * so a hung Redis fails within `commandTimeout` too.
 *
 * @example
 * import { Redis } from "ioredis";
 * const store = new RedisRateLimitStore(new Redis(process.env.REDIS_URL!, FAIL_FAST_REDIS_OPTIONS), { prefix: "api:rl:" });
 * adapter.registerMiddleware(createRateLimitMiddleware({ maxRequests: 100, windowMs: 60_000, store }));
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisEvalClient,
    options: RedisRateLimitStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "conduit:ratelimit:";
  }

  /** Every command goes through here: a client that is not connected, or any failure, is `STORE_UNAVAILABLE`. */
  private run(script: string, ...args: Array<string | number>): Promise<unknown> {
    const connecting = whenConnected(this.client, "rate-limit");
    if (connecting) return connecting.then(() => this.run(script, ...args));
    // One round trip: EVALSHA, the script's body sent again only after a NOSCRIPT.
    return storeCall("rate-limit", () => runScript(this.client, script, 1, ...args));
  }

  async hitWindow(key: string, check: WindowCheck): Promise<WindowResult> {
    const reply = (await this.run(WINDOW_SCRIPT, `${this.prefix}w:${key}`, check.maxRequests, check.windowMs, check.subWindows)) as [
      number,
      number,
      number,
    ];
    return { allowed: reply[0] === 1, count: Number(reply[1]), resetMs: Math.max(0, Number(reply[2])) };
  }

  async takeToken(key: string, check: BucketCheck): Promise<BucketResult> {
    const reply = (await this.run(BUCKET_SCRIPT, `${this.prefix}b:${key}`, check.capacity, check.windowMs)) as [
      number,
      string,
      number,
      number,
    ];
    return { allowed: reply[0] === 1, tokens: Number(reply[1]), retryAfterMs: Number(reply[2]), resetMs: Number(reply[3]) };
  }

  /** Readiness: one round trip (to every primary on a cluster); throws `STORE_UNAVAILABLE` when Redis does not answer. */
  async ping(): Promise<void> {
    const client = this.client as RedisEvalClient & PingableRedis;
    if (typeof client.nodes !== "function") return void (await this.run("return 1", `${this.prefix}ping`));
    const connecting = whenConnected(this.client, "rate-limit");
    if (connecting) await connecting;
    await storeCall("rate-limit", () => pingRedis(client));
  }
}
