import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { emptyUsage } from "@conduit-ai/server-core/pricing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenUsage } from "../../prices.js";
import { MemoryPoolStore } from "./memory-store.js";
import type { PoolStore, Quota } from "./pool-store.js";
import { RedisPoolStore } from "./redis-store.js";

// One contract, two stores: what the pool sees from memory (one process) it sees from Redis (many).
// Sharing across processes has its own test (shared-redis-pool.test.ts).
const prefix = `test:pool-parity:${randomUUID()}:`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
});
afterAll(async () => {
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const stores: Array<[string, () => PoolStore]> = [
  ["memory", () => new MemoryPoolStore()],
  ["redis", () => new RedisPoolStore(redis, `${prefix}${randomUUID()}:`)],
];

const usage = (fields: Partial<TokenUsage>): TokenUsage => ({ ...emptyUsage(), ...fields });

describe.each(stores)("PoolStore (%s)", (_name, open) => {
  it("readStates: an account never written is not cooling, not disabled, with no quota; no ids, no states", async () => {
    const store = open();
    expect(await store.readStates(["a", "b"])).toEqual({ a: { cooldownUntil: 0 }, b: { cooldownUntil: 0 } });
    expect(await store.readStates([])).toEqual({});
  });

  it("extendCooldown only moves a cooldown later, keeps the reason of the latest, and resolves with the stored value", async () => {
    const store = open();
    const until = Date.now() + 60_000;
    expect(await store.extendCooldown("a", until, "429")).toBe(until);
    expect(await store.extendCooldown("a", until - 30_000, "earlier")).toBe(until);
    expect((await store.readStates(["a"])).a).toEqual({ cooldownUntil: until, cooldownReason: "429" });
    expect(await store.extendCooldown("a", until + 1, "overloaded")).toBe(until + 1);
    expect((await store.readStates(["a", "b"])).a).toEqual({ cooldownUntil: until + 1, cooldownReason: "overloaded" });
    // Epoch milliseconds are whole: a fraction (a Retry-After of 1.5 s) is rounded up, never down.
    expect(await store.extendCooldown("c", until + 0.25, "fraction")).toBe(until + 1);
    expect((await store.readStates(["c"])).c?.cooldownUntil).toBe(until + 1);
  });

  it("disable marks an account with its reason; enable clears the mark and nothing else", async () => {
    const store = open();
    const until = Date.now() + 60_000;
    await store.extendCooldown("a", until, "429");
    await store.disable("a", "401 from upstream");
    expect((await store.readStates(["a"])).a).toEqual({ cooldownUntil: until, cooldownReason: "429", disabledReason: "401 from upstream" });
    await store.disable("a", "disabled by an operator");
    expect((await store.readStates(["a"])).a?.disabledReason).toBe("disabled by an operator");
    await store.enable("a");
    expect((await store.readStates(["a"])).a).toEqual({ cooldownUntil: until, cooldownReason: "429" });
    // Enabling an account that was never disabled changes nothing.
    await store.enable("b");
    expect((await store.readStates(["b"])).b).toEqual({ cooldownUntil: 0 });
  });

  it("saveQuota keeps the last quota as saved: a later change to the caller's object does not reach the store", async () => {
    const store = open();
    const quota: Quota = { updatedAt: 1_700_000_000_000, limits: { "unified-5h": { utilization: "0.4", reset: "1700003600" } } };
    await store.saveQuota("a", quota);
    (quota.limits["unified-5h"] as Record<string, string>).utilization = "0.9";
    const read = (await store.readStates(["a"])).a;
    expect(read).toEqual({
      cooldownUntil: 0,
      quota: { updatedAt: 1_700_000_000_000, limits: { "unified-5h": { utilization: "0.4", reset: "1700003600" } } },
    });
    // Nor does a change to what was read.
    (read?.quota?.limits["unified-5h"] as Record<string, string>).reset = "0";
    expect((await store.readStates(["a"])).a?.quota?.limits["unified-5h"]?.reset).toBe("1700003600");
    await store.saveQuota("a", { updatedAt: 1_700_000_100_000, limits: {} });
    expect((await store.readStates(["a"])).a?.quota).toEqual({ updatedAt: 1_700_000_100_000, limits: {} });
  });

  it("addUsage sums per account and model (both cache-write TTLs as cache creation); readUsage lists every pair", async () => {
    const store = open();
    expect(await store.readUsage()).toEqual([]);
    await store.addUsage("a", "claude-sonnet-4-5", usage({ input: 10, output: 5, cacheRead: 3, cacheWrite5m: 2, cacheWrite1h: 1 }), 0.1);
    await store.addUsage("a", "claude-sonnet-4-5", usage({ input: 1, output: 1 }), 0.2);
    await store.addUsage("a", "claude-haiku-4-5", usage({ output: 7 }), 0);
    await store.addUsage("b", "claude-sonnet-4-5", usage({}), 0.5);
    const rows = (await store.readUsage()).sort((x, y) => `${x.accountId}/${x.model}`.localeCompare(`${y.accountId}/${y.model}`));
    expect(rows.map(({ accountId, model }) => `${accountId}/${model}`)).toEqual([
      "a/claude-haiku-4-5",
      "a/claude-sonnet-4-5",
      "b/claude-sonnet-4-5",
    ]);
    const [haiku, sonnet, other] = rows;
    expect(haiku?.totals).toEqual({ requests: 1, inputTokens: 0, outputTokens: 7, cacheReadTokens: 0, cacheCreationTokens: 0, cost: 0 });
    expect(sonnet?.totals).toMatchObject({ requests: 2, inputTokens: 11, outputTokens: 6, cacheReadTokens: 3, cacheCreationTokens: 3 });
    expect(sonnet?.totals.cost).toBeCloseTo(0.3, 12);
    expect(other?.totals).toEqual({ requests: 1, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, cost: 0.5 });
  });

  it("saveTokens replaces an account's OAuth tokens; readTokens gives a copy, or undefined for none", async () => {
    const store = open();
    expect(await store.readTokens("a")).toBeUndefined();
    const tokens = { accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date.now() + 3_600_000 };
    await store.saveTokens("a", tokens);
    tokens.accessToken = "changed by the caller";
    const read = await store.readTokens("a");
    expect(read).toEqual({ ...tokens, accessToken: "access-1" });
    if (read) read.refreshToken = "changed by the reader";
    expect((await store.readTokens("a"))?.refreshToken).toBe("refresh-1");
    await store.saveTokens("a", { accessToken: "access-2", refreshToken: "refresh-2", expiresAt: 1 });
    expect(await store.readTokens("a")).toEqual({ accessToken: "access-2", refreshToken: "refresh-2", expiresAt: 1 });
    expect(await store.readTokens("b")).toBeUndefined();
  });

  it("tryLock: one holder at a time; the release frees it; a lock expires after its TTL", async () => {
    const store = open();
    const release = await store.tryLock("refresh:a", 60_000);
    expect(release).toBeTypeOf("function");
    expect(await store.tryLock("refresh:a", 60_000)).toBeUndefined();
    // Another name is another lock.
    expect(await store.tryLock("refresh:b", 60_000)).toBeTypeOf("function");
    await release?.();
    const again = await store.tryLock("refresh:a", 60_000);
    expect(again).toBeTypeOf("function");
    await again?.();

    const expiring = await store.tryLock("refresh:c", 50);
    expect(expiring).toBeTypeOf("function");
    await sleep(200);
    const next = await store.tryLock("refresh:c", 60_000);
    expect(next).toBeTypeOf("function");
    // The expired holder's late release leaves the new holder's lock in place.
    await expiring?.();
    expect(await store.tryLock("refresh:c", 60_000)).toBeUndefined();
  });

  it("saveSticky binds a session to an account for its TTL; readSticky gives it back, undefined once expired or never set", async () => {
    const store = open();
    expect(await store.readSticky("session-1")).toBeUndefined();
    await store.saveSticky("session-1", "a", 60_000);
    await store.saveSticky("session-2", "b", 50);
    expect(await store.readSticky("session-1")).toBe("a");
    await store.saveSticky("session-1", "c", 60_000);
    expect(await store.readSticky("session-1")).toBe("c");
    await sleep(200);
    expect(await store.readSticky("session-2")).toBeUndefined();
    expect(await store.readSticky("session-1")).toBe("c");
  });

  it("close resolves, and leaves the Redis client to its owner", async () => {
    const store = open();
    await store.saveSticky("session-1", "a", 60_000);
    await expect(store.close()).resolves.toBeUndefined();
    expect(await redis.ping()).toBe("PONG");
  });
});
