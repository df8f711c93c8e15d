import { randomUUID } from "node:crypto";
import { slotPrefix } from "@conduit-ai/server-core/internal";
import type { TokenUsage } from "../../prices.js";
import { type AccountState, type OAuthTokens, type PoolStore, type Quota, type UsageRow, emptyTotals } from "./pool-store.js";

/**
 * The one Redis call the store makes: every operation is a script, so the client is typed
 * structurally (an ioredis `Redis` or `Cluster` fits as is, and the server-core stores' client too).
 */
export interface RedisPoolClient {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

const READ_ACCOUNTS = `
local result = {}
for index, key in ipairs(KEYS) do result[index] = redis.call('HGETALL', key) end
return result`;
const HSET = "return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])";
const HDEL = "return redis.call('HDEL', KEYS[1], ARGV[1])";
const GET = "return redis.call('GET', KEYS[1])";
const SET = "return redis.call('SET', KEYS[1], ARGV[1])";
const SET_PX = "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])";
const SET_NX_PX = "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')";

// Extend-only: the stored cooldown only ever moves later, whoever writes it.
const EXTEND_COOLDOWN = `
local current = tonumber(redis.call('HGET', KEYS[1], 'cooldownUntil') or '0')
local wanted = tonumber(ARGV[1])
if wanted > current then
  redis.call('HSET', KEYS[1], 'cooldownUntil', ARGV[1], 'cooldownReason', ARGV[2])
  return ARGV[1]
end
return tostring(current)`;

// Release only a lock this holder still owns.
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const USAGE_FIELDS = ["requests", "inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens", "cost"] as const;

// One hash per account+model, its key listed in a set so /accounts can read them all.
const ADD_USAGE = `
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('HINCRBY', KEYS[1], 'inputTokens', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'outputTokens', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'cacheReadTokens', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'cacheCreationTokens', ARGV[5])
redis.call('HINCRBYFLOAT', KEYS[1], 'cost', ARGV[6])
return 1`;

const LIST_USAGE = `
local names = redis.call('SMEMBERS', KEYS[1])
local result = {}
for _, name in ipairs(names) do
  table.insert(result, name)
  table.insert(result, redis.call('HGETALL', KEYS[2] .. name))
end
return result`;

/**
 * The pool's state in Redis, shared by every process using the same `prefix`: cooldowns
 * (extend-only, atomically), disabled accounts, quota, usage, OAuth tokens, refresh locks
 * and sticky sessions. Every key is under one hash tag made of the prefix
 * (`{conduit:proxy}:…`, see server-core's `slotPrefix`): the scripts that read several
 * accounts or the usage index run in one Redis Cluster slot.
 */
export class RedisPoolStore implements PoolStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisPoolClient,
    prefix = "conduit:proxy:",
  ) {
    this.prefix = slotPrefix(prefix);
  }

  private accountKey(accountId: string): string {
    return `${this.prefix}account:${accountId}`;
  }

  async readStates(accountIds: readonly string[]): Promise<Record<string, AccountState>> {
    const result: Record<string, AccountState> = {};
    if (accountIds.length === 0) return result;
    const hashes = (await this.redis.eval(READ_ACCOUNTS, accountIds.length, ...accountIds.map((id) => this.accountKey(id)))) as string[][];
    accountIds.forEach((id, index) => {
      const hash = pairsToObject(hashes[index] ?? []);
      const state: AccountState = { cooldownUntil: Number(hash.cooldownUntil ?? 0) || 0 };
      if (hash.cooldownReason) state.cooldownReason = hash.cooldownReason;
      if (hash.disabledReason) state.disabledReason = hash.disabledReason;
      if (hash.quota) state.quota = JSON.parse(hash.quota) as Quota;
      result[id] = state;
    });
    return result;
  }

  async extendCooldown(accountId: string, until: number, reason: string): Promise<number> {
    return Number(await this.redis.eval(EXTEND_COOLDOWN, 1, this.accountKey(accountId), Math.ceil(until), reason));
  }

  async disable(accountId: string, reason: string): Promise<void> {
    await this.redis.eval(HSET, 1, this.accountKey(accountId), "disabledReason", reason);
  }

  async enable(accountId: string): Promise<void> {
    await this.redis.eval(HDEL, 1, this.accountKey(accountId), "disabledReason");
  }

  async saveQuota(accountId: string, quota: Quota): Promise<void> {
    await this.redis.eval(HSET, 1, this.accountKey(accountId), "quota", JSON.stringify(quota));
  }

  async addUsage(accountId: string, model: string, usage: TokenUsage, cost: number): Promise<void> {
    const name = `${accountId}\u0000${model}`;
    await this.redis.eval(
      ADD_USAGE,
      2,
      `${this.prefix}usage:${name}`,
      `${this.prefix}usage-index`,
      name,
      usage.input,
      usage.output,
      usage.cacheRead,
      usage.cacheWrite5m + usage.cacheWrite1h,
      String(cost),
    );
  }

  async readUsage(): Promise<UsageRow[]> {
    const flat = (await this.redis.eval(LIST_USAGE, 2, `${this.prefix}usage-index`, `${this.prefix}usage:`)) as Array<string | string[]>;
    const rows: UsageRow[] = [];
    for (let index = 0; index < flat.length; index += 2) {
      const [accountId = "", model = ""] = String(flat[index]).split("\u0000");
      const pairs = (flat[index + 1] ?? []) as string[];
      const totals = emptyTotals();
      for (let pair = 0; pair < pairs.length; pair += 2) {
        const field = pairs[pair] as (typeof USAGE_FIELDS)[number];
        if (USAGE_FIELDS.includes(field)) totals[field] = Number(pairs[pair + 1]);
      }
      rows.push({ accountId, model, totals });
    }
    return rows;
  }

  async readTokens(accountId: string): Promise<OAuthTokens | undefined> {
    const text = (await this.redis.eval(GET, 1, `${this.prefix}tokens:${accountId}`)) as string | null;
    return text ? (JSON.parse(text) as OAuthTokens) : undefined;
  }

  async saveTokens(accountId: string, tokens: OAuthTokens): Promise<void> {
    await this.redis.eval(SET, 1, `${this.prefix}tokens:${accountId}`, JSON.stringify(tokens));
  }

  async tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined> {
    const key = `${this.prefix}lock:${name}`;
    const owner = randomUUID();
    const taken = await this.redis.eval(SET_NX_PX, 1, key, owner, ttlMs);
    if (taken !== "OK") return undefined;
    return async () => {
      await this.redis.eval(RELEASE_LOCK, 1, key, owner);
    };
  }

  async readSticky(sessionKey: string): Promise<string | undefined> {
    return ((await this.redis.eval(GET, 1, `${this.prefix}sticky:${sessionKey}`)) as string | null) ?? undefined;
  }

  async saveSticky(sessionKey: string, accountId: string, ttlMs: number): Promise<void> {
    await this.redis.eval(SET_PX, 1, `${this.prefix}sticky:${sessionKey}`, accountId, ttlMs);
  }

  /** The Redis client belongs to the caller: closing the store leaves it open. */
  async close(): Promise<void> {}
}

function pairsToObject(pairs: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (let index = 0; index + 1 < pairs.length; index += 2) result[pairs[index] as string] = pairs[index + 1] as string;
  return result;
}
