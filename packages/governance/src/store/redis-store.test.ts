import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord } from "../records.js";
import { WINDOW_COUNTER_GRACE_MS, windowClock } from "../windows.js";
import { type AdmitInput, LEASE_RECORD_RETENTION_MS, type Reservation } from "./governance-store.js";
import { MemoryGovernanceStore } from "./memory-store.js";
import { RedisGovernanceStore } from "./redis-store.js";

// The store's scripts on the real Redis: nothing half-written, nothing counted twice, nothing kept forever.
const namespace = `test:gov-store:${randomBytes(6).toString("hex")}`;
let redis: Redis;
let store: RedisGovernanceStore;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  store = new RedisGovernanceStore({ redis, namespace });
});
afterAll(async () => {
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

async function mint(target: RedisGovernanceStore | MemoryGovernanceStore, policy: Partial<KeyRecord> = {}) {
  const digest = keyDigest(newKeySecret("sk-conduit-"), undefined);
  const id = `k_${randomBytes(6).toString("hex")}`;
  await target.createKey({ id, name: "store-test", hint: "abcd", createdAt: new Date().toISOString(), ...policy }, digest);
  return { id, digest };
}

const input = (digest: string, extra: Partial<AdmitInput> = {}): AdmitInput => ({
  digest,
  model: "claude-haiku-4-5",
  estimatedTokens: 100,
  estimatedPicoUsd: 5_000_000,
  clock: windowClock(Date.now()),
  leaseId: randomBytes(8).toString("hex"),
  leaseTtlMs: 60_000,
  ...extra,
});

const tag = (id: string) => `{${namespace}:k:${id}}`;

describe("RedisGovernanceStore scripts", () => {
  it("a number the counters cannot hold is refused before the first write: no lease, no minute, no reservation", async () => {
    const { id, digest } = await mint(store, { limits: { rpm: 1, concurrency: 1 }, budgets: [{ usd: 1e9, window: "total" }] });
    for (const extra of [{ estimatedPicoUsd: 5e21 }, { estimatedTokens: 1e300 }, { estimatedPicoUsd: Number.NaN }, { leaseTtlMs: -1e18 }]) {
      expect(await store.admit(input(digest, extra))).toMatchObject({ admitted: false, reason: "invalid_argument" });
    }
    expect((await redis.keys(`${tag(id)}*`)).sort()).toEqual([`${tag(id)}:key:${id}`]);
    expect(await store.admit(input(digest))).toMatchObject({ admitted: true });
  });

  it("a settlement applied twice (its answer lost, retried, replayed) counts once and frees the lease once", async () => {
    const { id, digest } = await mint(store, { budgets: [{ usd: 1, window: "total" }] });
    const outcome = await store.admit(input(digest));
    const reservation = (outcome as { reservation: Reservation }).reservation;
    expect(await store.settle(reservation, { actualTokens: 40, actualPicoUsd: 3_000_000 })).toBe(true);
    expect(await store.settle(reservation, { actualTokens: 40, actualPicoUsd: 3_000_000 })).toBe(false);
    expect(await store.release(reservation)).toBe(false);
    const clock = windowClock(Date.now());
    expect((await store.spendOf({ keyId: id }, clock)).total).toBe(3_000_000);
    expect(await redis.hget(`${tag(id)}:ctr:key:${id}:total`, "res")).toBe("0");
    expect(await redis.zcard(`${tag(id)}:lease:key:${id}`)).toBe(0);
  });

  it("day, week and month counters expire a day after their window; total never; leases are kept a week past expiry for late settlements", async () => {
    const { id, digest } = await mint(store);
    const clock = windowClock(Date.now());
    const outcome = await store.admit(input(digest, { clock, leaseTtlMs: 45_000 }));
    const reservation = (outcome as { reservation: Reservation }).reservation;
    const expiresAt = async (window: string) => await redis.pexpiretime(`${tag(id)}:ctr:key:${id}:${window}`);
    expect(await expiresAt(clock.ids.day)).toBe(clock.ends.day + WINDOW_COUNTER_GRACE_MS);
    expect(await expiresAt(clock.ids.week)).toBe(clock.ends.week + WINDOW_COUNTER_GRACE_MS);
    expect(await expiresAt(clock.ids.month)).toBe(clock.ends.month + WINDOW_COUNTER_GRACE_MS);
    expect(await expiresAt("total")).toBe(-1);
    const lease = `${tag(id)}:lease:key:${id}`;
    expect(Number(await redis.zscore(lease, reservation.leaseId))).toBe(clock.nowMs + 45_000);
    expect(await redis.pexpiretime(lease)).toBe(clock.nowMs + 45_000 + LEASE_RECORD_RETENTION_MS);
    await store.renewLease(reservation, clock.nowMs + 90_000);
    expect(Number(await redis.zscore(lease, reservation.leaseId))).toBe(clock.nowMs + 90_000);
    await store.settle(reservation, { actualTokens: 1, actualPicoUsd: 1 });
    expect(await expiresAt(clock.ids.day)).toBe(clock.ends.day + WINDOW_COUNTER_GRACE_MS);
  });

  it("an expired lease no longer counts against concurrency, but its late settlement still lands once", async () => {
    const { id, digest } = await mint(store, { limits: { concurrency: 1 } });
    const stale = await store.admit(input(digest, { leaseTtlMs: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.admit(input(digest))).toMatchObject({ admitted: true });
    expect(await store.settle((stale as { reservation: Reservation }).reservation, { actualTokens: 10, actualPicoUsd: 7 })).toBe(true);
    expect((await store.spendOf({ keyId: id }, windowClock(Date.now()))).total).toBe(7);
  });

  it("a record cjson cannot decode: lone surrogates are read anyway; a broken one refuses its key alone", async () => {
    const team = `t_${randomBytes(4).toString("hex")}`;
    await store.createTeam({ id: team, name: "team\ud800", createdAt: new Date().toISOString() });
    const odd = await mint(store, { name: "key\udc00", team, models: ["claude-haiku-*"] });
    expect(await store.admit(input(odd.digest))).toMatchObject({ admitted: true, key: { name: "key\udc00" } });
    expect(await store.admit(input(odd.digest, { model: "claude-opus-4" }))).toMatchObject({ reason: "model_not_allowed" });
    const broken = await mint(store);
    await redis.hset(`${tag(broken.id)}:key:${broken.id}`, "config", '{"id":');
    expect(await store.admit(input(broken.digest))).toEqual({ admitted: false, reason: "invalid_key_record", scope: "key" });
    const badPolicy = await mint(store);
    await redis.hset(`${tag(badPolicy.id)}:key:${badPolicy.id}`, "config", JSON.stringify({ id: badPolicy.id, limits: { rpm: "x" } }));
    expect(await store.admit(input(badPolicy.digest))).toEqual({ admitted: false, reason: "invalid_key_record", scope: "key" });
    expect(await store.admit(input((await mint(store)).digest))).toMatchObject({ admitted: true });
  });

  it("an unpriced model is refused to a key or team with a budget, admitted otherwise", async () => {
    const budgeted = await mint(store, { budgets: [{ usd: 5, window: "month" }] });
    expect(await store.admit(input(budgeted.digest, { unpricedModel: "claude-future-9" }))).toMatchObject({
      admitted: false,
      reason: "model_unpriced",
      scope: "key",
    });
    const free = await mint(store);
    expect(await store.admit(input(free.digest, { unpricedModel: "claude-future-9" }))).toMatchObject({ admitted: true });
  });
});

describe("MemoryGovernanceStore", () => {
  it("settles once, and refuses an unpriced model to a budgeted key, like the Redis store", async () => {
    const memory = new MemoryGovernanceStore();
    const { id, digest } = await mint(memory, { budgets: [{ usd: 1, window: "total" }] });
    const reservation = ((await memory.admit(input(digest))) as { reservation: Reservation }).reservation;
    expect(await memory.settle(reservation, { actualTokens: 1, actualPicoUsd: 9 })).toBe(true);
    expect(await memory.settle(reservation, { actualTokens: 1, actualPicoUsd: 9 })).toBe(false);
    expect((await memory.spendOf({ keyId: id }, windowClock(Date.now()))).total).toBe(9);
    expect(await memory.admit(input(digest, { unpricedModel: "x" }))).toMatchObject({ reason: "model_unpriced" });
  });
});
