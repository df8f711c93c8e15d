import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord, TeamRecord } from "../records.js";
import { windowClock } from "../windows.js";
import type { AdmitInput, GovernanceStore, Reservation } from "./governance-store.js";
import { MemoryGovernanceStore } from "./memory-store.js";
import { RedisGovernanceStore } from "./redis-store.js";

// One contract, two stores: what a gate sees from memory (one process) it sees from Redis (many).
// A store-specific detail (TTLs, the Lua scripts' keys) has its own test in redis-store.test.ts.
const namespace = `test:gov-parity:${randomBytes(6).toString("hex")}`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
});
afterAll(async () => {
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const stores: Array<[string, () => GovernanceStore]> = [
  ["memory", () => new MemoryGovernanceStore()],
  ["redis", () => new RedisGovernanceStore({ redis, namespace: `${namespace}:${randomBytes(3).toString("hex")}` })],
];

const now = () => new Date().toISOString();

async function mint(store: GovernanceStore, policy: Partial<KeyRecord> = {}) {
  const digest = keyDigest(newKeySecret("sk-conduit-"), undefined);
  const id = `k_${randomBytes(6).toString("hex")}`;
  await store.createKey({ id, name: "parity", hint: digest.slice(-4), createdAt: now(), ...policy }, digest);
  return { id, digest };
}

async function team(store: GovernanceStore, policy: Partial<TeamRecord> = {}) {
  const id = `t_${randomBytes(4).toString("hex")}`;
  await store.createTeam({ id, name: "parity team", createdAt: now(), ...policy });
  return id;
}

const input = (digest: string, extra: Partial<AdmitInput> = {}): AdmitInput => ({
  digest,
  model: "claude-haiku-4-5",
  estimatedTokens: 100,
  estimatedPicoUsd: 1_000_000,
  clock: windowClock(Date.now()),
  leaseId: randomBytes(8).toString("hex"),
  leaseTtlMs: 60_000,
  ...extra,
});

async function admitted(store: GovernanceStore, request: AdmitInput): Promise<Reservation> {
  const outcome = await store.admit(request);
  if (!outcome.admitted) throw new Error(`refused: ${outcome.reason}`);
  return outcome.reservation;
}

describe.each(stores)("GovernanceStore contract on %s", (_kind, make) => {
  it("keys: created, read, listed, updated, deleted; a digest names its key until then", async () => {
    const store = make();
    const { id, digest } = await mint(store, { models: ["claude-*"] });
    expect(await store.keyIdOf(digest)).toBe(id);
    expect(await store.isActiveDigest(digest, Date.now())).toBe(true);
    expect(await store.getKey(id)).toMatchObject({ id, models: ["claude-*"] });
    expect((await store.listKeys()).map((key) => key.id)).toContain(id);
    await store.updateKey({ ...(await store.getKey(id))!, name: "renamed" });
    expect(await store.getKey(id)).toMatchObject({ name: "renamed" });
    expect(await store.deleteKey(id)).toBe(true);
    expect(await store.deleteKey(id)).toBe(false);
    expect(await store.getKey(id)).toBeUndefined();
    expect(await store.keyIdOf(digest)).toBeUndefined();
    expect(await store.admit(input(digest))).toEqual({ admitted: false, reason: "invalid_key" });
  });

  it("an unknown digest is an invalid key", async () => {
    expect(await make().admit(input(keyDigest("sk-conduit-nobody", undefined)))).toEqual({ admitted: false, reason: "invalid_key" });
  });

  it("a rotated key: the new secret works, the old one until its grace ends", async () => {
    const store = make();
    const { id, digest } = await mint(store);
    const next = keyDigest(newKeySecret("sk-conduit-"), undefined);
    expect(await store.rotateKey(id, next, Date.now() + 60_000)).toBe(true);
    expect(await store.isActiveDigest(next, Date.now())).toBe(true);
    expect(await store.isActiveDigest(digest, Date.now())).toBe(true);
    expect(await store.isActiveDigest(digest, Date.now() + 120_000)).toBe(false);
    expect(await store.rotateKey("k_missing", next, Date.now())).toBe(false);
  });

  it("teams: created, read, listed, updated, deleted", async () => {
    const store = make();
    const id = await team(store, { budgets: [{ usd: 3, window: "month" }] });
    expect(await store.getTeam(id)).toMatchObject({ id, budgets: [{ usd: 3, window: "month" }] });
    expect((await store.listTeams()).map((entry) => entry.id)).toContain(id);
    await store.updateTeam({ ...(await store.getTeam(id))!, name: "renamed" });
    expect(await store.getTeam(id)).toMatchObject({ name: "renamed" });
    expect(await store.deleteTeam(id)).toBe(true);
    expect(await store.getTeam(id)).toBeUndefined();
  });

  it("a model outside the key's allow-list is refused", async () => {
    const store = make();
    const { digest } = await mint(store, { models: ["claude-haiku-*"] });
    expect(await store.admit(input(digest, { model: "claude-opus-4" }))).toMatchObject({ admitted: false, reason: "model_not_allowed" });
    expect(await store.admit(input(digest))).toMatchObject({ admitted: true });
  });

  it("rpm: the second call of the minute is refused with a retry-after within the minute", async () => {
    const store = make();
    const { digest } = await mint(store, { limits: { rpm: 1 } });
    const clock = windowClock(Date.now());
    await admitted(store, input(digest, { clock }));
    const refused = await store.admit(input(digest, { clock }));
    expect(refused).toMatchObject({ admitted: false, reason: "rate_limited", scope: "key", limit: "rpm" });
    const retry = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it("tpm counts the reservation, then the settled tokens", async () => {
    const store = make();
    const { digest } = await mint(store, { limits: { tpm: 250 } });
    const clock = windowClock(Date.now());
    const first = await admitted(store, input(digest, { clock, estimatedTokens: 200 }));
    expect(await store.admit(input(digest, { clock, estimatedTokens: 100 }))).toMatchObject({ reason: "rate_limited", limit: "tpm" });
    await store.settle(first, { actualTokens: 50, actualPicoUsd: 1 });
    expect(await store.admit(input(digest, { clock, estimatedTokens: 100 }))).toMatchObject({ admitted: true });
  });

  it("concurrency: a call in flight holds its slot until settled or released; an expired lease stops counting", async () => {
    const store = make();
    const { digest } = await mint(store, { limits: { concurrency: 1 } });
    const first = await admitted(store, input(digest));
    expect(await store.admit(input(digest))).toMatchObject({ admitted: false, reason: "concurrency", scope: "key" });
    expect(await store.release(first)).toBe(true);
    expect(await store.release(first)).toBe(false);
    await admitted(store, input(digest, { leaseTtlMs: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.admit(input(digest))).toMatchObject({ admitted: true });
  });

  it("a renewed lease keeps its slot past its first expiry", async () => {
    const store = make();
    const { digest } = await mint(store, { limits: { concurrency: 1 } });
    const clock = windowClock(Date.now());
    const held = await admitted(store, input(digest, { clock, leaseTtlMs: 20 }));
    await store.renewLease(held, Date.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await store.admit(input(digest))).toMatchObject({ admitted: false, reason: "concurrency" });
  });

  it("budgets: settled spend counts once, and a call past the budget is refused naming the window", async () => {
    const store = make();
    const { id, digest } = await mint(store, { budgets: [{ usd: 0.00001, window: "day" }] });
    const clock = windowClock(Date.now());
    const reservation = await admitted(store, input(digest, { clock, estimatedPicoUsd: 4_000_000 }));
    expect(await store.settle(reservation, { actualTokens: 10, actualPicoUsd: 9_000_000 })).toBe(true);
    expect(await store.settle(reservation, { actualTokens: 10, actualPicoUsd: 9_000_000 })).toBe(false);
    expect(await store.spendOf({ keyId: id }, clock)).toMatchObject({ day: 9_000_000, total: 9_000_000 });
    expect(await store.admit(input(digest, { clock, estimatedPicoUsd: 2_000_000 }))).toMatchObject({
      admitted: false,
      reason: "budget_exceeded",
      scope: "key",
      window: "day",
    });
  });

  it("a team's budget caps its keys together", async () => {
    const store = make();
    const teamId = await team(store, { budgets: [{ usd: 0.00001, window: "total" }] });
    const first = await mint(store, { team: teamId });
    const second = await mint(store, { team: teamId });
    const clock = windowClock(Date.now());
    const reservation = await admitted(store, input(first.digest, { clock }));
    expect(reservation.team).toBe(teamId);
    await store.settle(reservation, { actualTokens: 10, actualPicoUsd: 10_000_000 });
    expect((await store.spendOf({ team: teamId }, clock)).total).toBe(10_000_000);
    expect(await store.admit(input(second.digest, { clock }))).toMatchObject({ admitted: false, reason: "budget_exceeded", scope: "team" });
  });

  it("an unpriced model is refused to a budgeted key, admitted to a key without a budget", async () => {
    const store = make();
    const budgeted = await mint(store, { budgets: [{ usd: 5, window: "month" }] });
    expect(await store.admit(input(budgeted.digest, { unpricedModel: "claude-future-9" }))).toMatchObject({
      admitted: false,
      reason: "model_unpriced",
      scope: "key",
    });
    const free = await mint(store);
    expect(await store.admit(input(free.digest, { unpricedModel: "claude-future-9" }))).toMatchObject({ admitted: true });
  });

  it("a released reservation spends nothing", async () => {
    const store = make();
    const { id, digest } = await mint(store, { budgets: [{ usd: 1, window: "total" }] });
    const clock = windowClock(Date.now());
    await store.release(await admitted(store, input(digest, { clock })));
    expect((await store.spendOf({ keyId: id }, clock)).total).toBe(0);
  });
});
