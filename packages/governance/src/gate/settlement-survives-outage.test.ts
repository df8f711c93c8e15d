import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRICES, type GateAdmission, type GateRefusal, mergePrices } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord } from "../records.js";
import { RedisGovernanceStore } from "../store/redis-store.js";
import { MemoryUsageSink } from "../usage/memory-usage-sink.js";
import { windowClock } from "../windows.js";
import { GovernanceGate, LEASE_MARGIN_MS } from "./governance-gate.js";
import { ModelPricing } from "./model-pricing.js";

// A settlement lost with the Redis connection used to be lost for good (the reservation stuck on a
// `total` budget, no history row, the lease held for 15 minutes). The connection here is the
// store's own, closed and reopened for real; the Redis restart itself is in the conformance suite.
const namespace = `test:gov-settle:${randomBytes(6).toString("hex")}`;
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
let admin: Redis;
beforeAll(() => {
  admin = new Redis(url);
});
afterAll(async () => {
  const keys = await admin.keys(`*${namespace}*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

function gateOn(redis: Redis, spillFile: string, extra: { maxPendingSettlements?: number } = {}) {
  const usage = new MemoryUsageSink();
  const store = new RedisGovernanceStore({ redis, namespace });
  const gate = new GovernanceGate({ store, usage, prices: DEFAULT_PRICES, settlementSpillFile: spillFile, ...extra });
  return { gate, store, usage };
}

async function mint(store: RedisGovernanceStore, policy: Partial<KeyRecord>): Promise<{ credential: string; id: string }> {
  const credential = newKeySecret("sk-conduit-");
  const id = `k_${randomBytes(6).toString("hex")}`;
  await store.createKey({ id, name: "t", hint: "abcd", createdAt: new Date().toISOString(), ...policy }, keyDigest(credential, undefined));
  return { credential, id };
}

const ask = { surface: "anthropic" as const, model: "claude-haiku-4-5", estimatedInputTokens: 10, maxOutputTokens: 10 };
const usage = { model: "claude-haiku-4-5", inputTokens: 1000, outputTokens: 100, status: 200, latencyMs: 1 };
/** haiku-4-5: $1 in, $5 out per million tokens. */
const COST_PICO = 1000 * 1e6 + 100 * 5e6;
const admitted = (decision: GateAdmission | GateRefusal) => decision as GateAdmission;
const spillFileIn = () => join(mkdtempSync(join(tmpdir(), "conduit-settle-")), "spill.ndjson");
/** A fail-fast connection (as the server's connection factory makes them), once ready. */
async function failFast(): Promise<Redis> {
  const redis = new Redis(url, { ...FAIL_FAST_REDIS_OPTIONS });
  await new Promise((resolve) => redis.once("ready", resolve));
  return redis;
}
/** The connection closed under the store (what a restart or a failover does to it). */
async function dropped(redis: Redis): Promise<void> {
  const ended = new Promise((resolve) => redis.once("end", resolve));
  redis.disconnect();
  await ended;
}
const leaseKey = (id: string) => `{${namespace}:k:${id}}:lease:key:${id}`;

describe("settlements survive a lost store connection", () => {
  it("queued while the connection is down (history written at once), applied once on recovery: spend, reservation and lease exact", async () => {
    const redis = await failFast();
    const { gate, store, usage: sink } = gateOn(redis, spillFileIn());
    const { credential, id } = await mint(store, { budgets: [{ usd: 1, window: "total" }], limits: { concurrency: 1 } });
    const decision = admitted(await gate.admit({ credential, ...ask, timeoutMs: 60_000 }));
    await dropped(redis);
    await decision.settle(usage); // resolves: the store is away, the settlement waits
    expect(gate.pendingSettlements).toBe(1);
    const rows = await sink.query({ groupBy: "key", from: new Date(0), to: new Date(Date.now() + 1000) });
    expect(rows).toMatchObject([{ group: id, requests: 1, costUsd: COST_PICO / 1e12 }]);
    await redis.connect();
    await expect.poll(() => gate.pendingSettlements, { timeout: 5_000 }).toBe(0);
    const clock = windowClock(Date.now());
    expect((await store.spendOf({ keyId: id }, clock)).total).toBe(COST_PICO);
    expect(await admin.hget(`{${namespace}:k:${id}}:ctr:key:${id}:total`, "res")).toBe("0");
    expect(await admin.zcard(leaseKey(id))).toBe(0);
    expect(gate.pendingSettlements).toBe(0);
    await gate.close();
    redis.disconnect();
  });

  it("the lease lasts the call's own timeout plus a margin (not 15 minutes)", async () => {
    const redis = new Redis(url);
    const { gate, store } = gateOn(redis, spillFileIn());
    const { credential, id } = await mint(store, {});
    const before = Date.now();
    const decision = admitted(await gate.admit({ credential, ...ask, timeoutMs: 2_000 }));
    const [lease] = await admin.zrange(leaseKey(id), "0", "-1");
    const score = await admin.zscore(leaseKey(id), lease as string);
    expect(Number(score)).toBeGreaterThanOrEqual(before + 2_000 + LEASE_MARGIN_MS);
    expect(Number(score)).toBeLessThanOrEqual(Date.now() + 2_000 + LEASE_MARGIN_MS);
    await decision.release();
    expect(await admin.zcard(leaseKey(id))).toBe(0);
    await gate.close();
    redis.disconnect();
  });

  it("a call running past its lease has it renewed while it runs, and freed when it settles", async () => {
    const redis = new Redis(url);
    const store = new RedisGovernanceStore({ redis, namespace });
    const gate = new GovernanceGate({ store, usage: new MemoryUsageSink(), prices: DEFAULT_PRICES, leaseMarginMs: 0 });
    const { credential, id } = await mint(store, { limits: { concurrency: 1, queueTimeoutMs: 50 } });
    const started = Date.now();
    const decision = admitted(await gate.admit({ credential, ...ask, timeoutMs: 1_000 }));
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    // A 1 s lease renewed every 333 ms (a third of its life): still held, still counted.
    const [lease] = await admin.zrange(leaseKey(id), "0", "-1");
    expect(Number(await admin.zscore(leaseKey(id), lease as string))).toBeGreaterThan(started + 2_000);
    expect(await gate.admit({ credential, ...ask })).toMatchObject({ status: 429, reason: "concurrency_timeout" });
    await decision.settle(usage);
    expect(await admin.zcard(leaseKey(id))).toBe(0);
    await gate.close();
    redis.disconnect();
  });

  it("past the in-memory bound they spill to a file; the next process replays it, each once", async () => {
    const spillFile = spillFileIn();
    const redis = await failFast();
    const first = gateOn(redis, spillFile, { maxPendingSettlements: 2 });
    const { credential, id } = await mint(first.store, { budgets: [{ usd: 1, window: "total" }] });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => first.gate.admit({ credential, ...ask })));
    await dropped(redis);
    for (const decision of decisions) await admitted(decision).settle(usage);
    // The overflow is appended to the file in the background: wait for it rather than race it.
    await expect.poll(() => existsSync(spillFile) && readFileSync(spillFile, "utf8").trim().length > 0, { timeout: 5_000 }).toBe(true);
    await first.gate.close(); // the store still away: everything left goes to the file
    expect(readFileSync(spillFile, "utf8").trim().split("\n")).toHaveLength(5);
    const next = gateOn(new Redis(url), spillFile);
    await expect
      .poll(async () => (await next.store.spendOf({ keyId: id }, windowClock(Date.now()))).total, { timeout: 5_000 })
      .toBe(5 * COST_PICO);
    // Replayed again (a process that died mid-replay): counted once all the same.
    await next.gate.flushSettlements();
    expect((await next.store.spendOf({ keyId: id }, windowClock(Date.now()))).total).toBe(5 * COST_PICO);
    expect(await admin.zcard(leaseKey(id))).toBe(0);
    await next.gate.close();
  });

  it("refuses an output cap above 10^7 before the store sees it", async () => {
    const redis = new Redis(url);
    const { gate, store } = gateOn(redis, spillFileIn());
    const { credential, id } = await mint(store, {});
    expect(await gate.admit({ credential, ...ask, maxOutputTokens: 1e12 })).toMatchObject({ status: 400, reason: "invalid_request" });
    expect(await admin.exists(leaseKey(id))).toBe(0);
    await gate.close();
    redis.disconnect();
  });
});

describe("ModelPricing", () => {
  it("reserves at the dearest reachable model, flags the unpriced one, estimates by vendor, warns once per model", () => {
    const warnings: string[] = [];
    const refuse = new ModelPricing(mergePrices(), "refuse", (message) => warnings.push(message));
    expect(refuse.forReservation(["claude-haiku-4-5", "anthropic/claude-opus-4"], 10, 100).price).toMatchObject({ output: 75 });
    expect(refuse.forReservation(["openai/gpt-4o-mini"], 0, 1_000_000).picoUsd).toBe(0.6e12);
    expect(refuse.forReservation(["claude-future-9", "claude-haiku-4-5"], 0, 100)).toMatchObject({ unpricedModel: "claude-future-9" });
    refuse.forReservation(["claude-future-9"], 0, 100);
    expect(warnings.filter((warning) => warning.includes('"claude-future-9"'))).toHaveLength(1);
    expect(warnings[0]).toContain('"prices"');
    const estimate = new ModelPricing(mergePrices(), "estimate");
    expect(estimate.forReservation(["claude-future-9"], 0, 100).price).toMatchObject({ input: 15, output: 75 });
    expect(estimate.forReservation(["gpt-future-1"], 0, 100).price).toMatchObject({ output: 10 });
    const allow = new ModelPricing(mergePrices(), "allow");
    expect(allow.forReservation(["claude-future-9"], 0, 100).picoUsd).toBe(0);
    // A call naming no model may reach any: the dearest of the table.
    expect(allow.forReservation(undefined, 0, 100).price).toMatchObject({ output: 75 });
  });
});
