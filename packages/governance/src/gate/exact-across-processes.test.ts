import { randomBytes } from "node:crypto";
import { DEFAULT_PRICES, type GateAdmission, type GateRefusal } from "@conduit-ai/server-core";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord } from "../records.js";
import { RedisGovernanceStore } from "../store/redis-store.js";
import { MemoryUsageSink } from "../usage/memory-usage-sink.js";
import { windowClock } from "../windows.js";
import { GovernanceGate } from "./governance-gate.js";

// Two gates, each with its own store and its own Redis connection: two processes as far as
// Redis can tell. Every figure must hold across both.
const namespace = `test:gov:${randomBytes(6).toString("hex")}`;
const connections: Redis[] = [];
const sinks = [new MemoryUsageSink(), new MemoryUsageSink()];
let gates: GovernanceGate[];
let stores: RedisGovernanceStore[];

beforeAll(() => {
  connections.push(
    new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"),
    new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"),
  );
  stores = connections.map((redis) => new RedisGovernanceStore({ redis, namespace }));
  gates = stores.map((store, index) => new GovernanceGate({ store, usage: sinks[index] as MemoryUsageSink, prices: DEFAULT_PRICES }));
});

afterAll(async () => {
  const keys = await connections[0]?.keys(`*${namespace}*`);
  if (keys && keys.length > 0) await connections[0]?.del(...keys);
  for (const redis of connections) redis.disconnect();
});

async function mint(policy: Partial<KeyRecord>): Promise<{ credential: string; id: string }> {
  const credential = newKeySecret("sk-conduit-");
  const id = `k_${randomBytes(6).toString("hex")}`;
  const record: KeyRecord = { id, name: "test", hint: credential.slice(-4), createdAt: new Date().toISOString(), ...policy };
  await (stores[0] as RedisGovernanceStore).createKey(record, keyDigest(credential, undefined));
  return { credential, id };
}

const ask = { surface: "anthropic" as const, model: "claude-haiku-4-5", estimatedInputTokens: 10, maxOutputTokens: 10 };
const usage = { model: "claude-haiku-4-5", inputTokens: 10, outputTokens: 10, status: 200, latencyMs: 1 };

/** Waits out the last seconds of a minute so a per-minute count stays in one window. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}

const admitted = (decision: GateAdmission | GateRefusal): decision is GateAdmission => !("refused" in decision);

describe("exact across two processes on one Redis", () => {
  it("200 concurrent calls against a $1.00 budget: spend ≤ budget + the largest call; recorded = Σ usage × price", async () => {
    const { credential, id } = await mint({ budgets: [{ usd: 1, window: "total" }] });
    const model = "claude-sonnet-4-5";
    const costs: number[] = [];
    let refusedForBudget = 0;
    await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const gate = gates[index % 2] as GovernanceGate;
        const decision = await gate.admit({ credential, surface: "anthropic", model, estimatedInputTokens: 1000, maxOutputTokens: 2000 });
        if (!admitted(decision)) {
          expect(decision).toMatchObject({ status: 429, reason: "budget_exceeded", final: true });
          expect(decision.retryAfterSeconds).toBeUndefined();
          refusedForBudget += 1;
          return;
        }
        // Real usage differs from the estimate, as upstream reports it (some calls cancelled early).
        const outputTokens = (index * 37) % 2001;
        const inputTokens = 900 + (index % 200);
        await new Promise((resolve) => setTimeout(resolve, index % 7));
        await decision.settle({ model, inputTokens, outputTokens, cacheReadTokens: index % 3 === 0 ? 100 : 0, status: 200, latencyMs: 5 });
        costs.push(inputTokens * 3e-6 + outputTokens * 15e-6 + (index % 3 === 0 ? 100 * 0.3e-6 : 0));
      }),
    );
    expect(refusedForBudget).toBeGreaterThan(0);
    const spend = await stores[1]?.spendOf({ keyId: id }, windowClock(Date.now()));
    const recorded = (spend?.total ?? 0) / 1e12;
    const expected = costs.reduce((sum, cost) => sum + cost, 0);
    expect(Math.abs(recorded - expected)).toBeLessThan(1e-9);
    expect(recorded).toBeLessThanOrEqual(1 + Math.max(...costs));
    const events = [
      ...((await sinks[0]?.query({ groupBy: "key", from: new Date(0), to: new Date(Date.now() + 1000) })) ?? []),
      ...((await sinks[1]?.query({ groupBy: "key", from: new Date(0), to: new Date(Date.now() + 1000) })) ?? []),
    ];
    expect(events.reduce((sum, row) => sum + row.requests, 0)).toBe(costs.length);
    expect(Math.abs(events.reduce((sum, row) => sum + row.costUsd, 0) - expected)).toBeLessThan(1e-9);
  });

  it("rpm is exact to the request: 200 concurrent calls, rpm 50 → exactly 50 admitted, the rest 429 with retry-after", async () => {
    await awayFromMinuteEdge();
    const { credential } = await mint({ limits: { rpm: 50 } });
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, index) => (gates[index % 2] as GovernanceGate).admit({ credential, ...ask })),
    );
    const passed = decisions.filter(admitted);
    expect(passed).toHaveLength(50);
    for (const decision of decisions.filter((item) => !admitted(item)))
      expect(decision).toMatchObject({ status: 429, reason: "rate_limited", final: false, retryAfterSeconds: expect.any(Number) });
    await Promise.all(passed.map((decision) => decision.settle(usage)));
  });

  it("a team caps its keys together, across processes", async () => {
    await awayFromMinuteEdge();
    const team = `t_${randomBytes(4).toString("hex")}`;
    await stores[0]?.createTeam({ id: team, name: "research", limits: { rpm: 7 }, createdAt: new Date().toISOString() });
    const first = await mint({ team });
    const second = await mint({ team });
    const decisions = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (gates[index % 2] as GovernanceGate).admit({ credential: index < 10 ? first.credential : second.credential, ...ask }),
      ),
    );
    expect(decisions.filter(admitted)).toHaveLength(7);
    expect(decisions.find((decision) => !admitted(decision))).toMatchObject({
      reason: "rate_limited",
      message: expect.stringContaining("team"),
    });
  });

  it("concurrency over the cap waits in line (FIFO) and gets the slot another process frees; past queueTimeoutMs → 429", async () => {
    const { credential } = await mint({ limits: { concurrency: 2, queueTimeoutMs: 2_000 } });
    const [gateA, gateB] = gates as [GovernanceGate, GovernanceGate];
    const holders = (await Promise.all([gateA.admit({ credential, ...ask }), gateA.admit({ credential, ...ask })])).filter(admitted);
    expect(holders).toHaveLength(2);
    const order: number[] = [];
    const waiting = [0, 1, 2].map((index) =>
      gateB.admit({ credential, ...ask }).then((decision) => {
        order.push(index);
        return decision;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual([]);
    await holders[0]?.settle(usage); // freed in the other process
    const firstIn = await waiting[0];
    expect(admitted(firstIn as GateAdmission)).toBe(true);
    await holders[1]?.release();
    expect(admitted((await waiting[1]) as GateAdmission)).toBe(true);
    // Both slots taken again: the third waits out its queue timeout.
    expect(await waiting[2]).toMatchObject({ status: 429, reason: "concurrency_timeout", retryAfterSeconds: 1 });
    expect(order).toEqual([0, 1, 2]);
    await (firstIn as GateAdmission).settle(usage);
    await ((await waiting[1]) as GateAdmission).settle(usage);
  });

  it("a revoked key is refused at once by every process, even one that has just admitted it", async () => {
    const { credential, id } = await mint({});
    const before = await (gates[1] as GovernanceGate).admit({ credential, ...ask });
    expect(admitted(before)).toBe(true);
    await (before as GateAdmission).release();
    expect(await stores[0]?.deleteKey(id)).toBe(true);
    expect(await (gates[1] as GovernanceGate).admit({ credential, ...ask })).toMatchObject({
      status: 401,
      reason: "invalid_key",
      final: true,
    });
  });

  it("rotation: the old secret works for the grace period, then never; the new one from the start", async () => {
    const { credential, id } = await mint({});
    const rotated = newKeySecret("sk-conduit-");
    await stores[0]?.rotateKey(id, keyDigest(rotated, undefined), Date.now() + 400);
    const during = await (gates[1] as GovernanceGate).admit({ credential, ...ask });
    expect(admitted(during)).toBe(true);
    await (during as GateAdmission).release();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await (gates[1] as GovernanceGate).admit({ credential, ...ask })).toMatchObject({ status: 401, reason: "invalid_key" });
    const fresh = await (gates[0] as GovernanceGate).admit({ credential: rotated, ...ask });
    expect(admitted(fresh)).toBe(true);
    await (fresh as GateAdmission).release();
  });

  it("the model allow-list (exact or prefix*) → 403 naming the model; an expired key → 401; no key → 401", async () => {
    const { credential } = await mint({ models: ["claude-haiku-*", "gpt-5"] });
    const allowed = await (gates[0] as GovernanceGate).admit({ credential, ...ask });
    expect(admitted(allowed)).toBe(true);
    await (allowed as GateAdmission).release();
    expect(await (gates[1] as GovernanceGate).admit({ credential, ...ask, model: "claude-opus-4-5" })).toMatchObject({
      status: 403,
      reason: "model_not_allowed",
      message: expect.stringContaining("claude-opus-4-5"),
    });
    const expired = await mint({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(await (gates[0] as GovernanceGate).admit({ credential: expired.credential, ...ask })).toMatchObject({
      status: 401,
      reason: "invalid_key",
    });
    expect(await (gates[0] as GovernanceGate).admit({ credential: undefined, ...ask })).toMatchObject({
      status: 401,
      reason: "missing_key",
    });
  });

  it("a day budget refuses with retry-after = seconds to the next UTC midnight, and may be retried", async () => {
    const { credential } = await mint({ budgets: [{ usd: 0.000001, window: "day" }] });
    const refusal = await (gates[0] as GovernanceGate).admit({ credential, ...ask });
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(refusal).toMatchObject({ status: 429, reason: "budget_exceeded", final: false });
    expect(Math.abs(((refusal as GateRefusal).retryAfterSeconds ?? 0) - (midnight.getTime() - Date.now()) / 1000)).toBeLessThan(5);
  });
});
