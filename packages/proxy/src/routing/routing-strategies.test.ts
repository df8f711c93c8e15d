import { randomUUID } from "node:crypto";
import { rawResponse } from "@conduit-ai/server-core";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "../prices.js";
import { serveWithFallbacks } from "./fallbacks.js";
import { type ModelTableOptions, createModelTable } from "./model-table.js";
import { MemoryRoutingStats, RedisRoutingStats } from "./routing-stats.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A seeded generator: the shares below are exact, not a coin's luck. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const deployments = (strategy: string, targets: unknown[], fallbacks: string[] = []) => ({ pool: { targets, strategy, fallbacks } });

async function firstOf(table: ReturnType<typeof createModelTable>, estimate?: { inputTokens: number; outputTokens: number }) {
  return (await table.plan("pool", estimate)).targets[0]?.name;
}

/** Plans one call of "pool" on `table` and serves it: each target answers after its delay (ms) and is recorded in `served`. */
async function serveDelayed(table: ReturnType<typeof createModelTable>, delays: Record<string, number>, served: string[]): Promise<void> {
  const plan = await table.plan("pool");
  await serveWithFallbacks(
    plan.targets,
    new AbortController().signal,
    async (target) => {
      await new Promise((resolve) => setTimeout(resolve, delays[target.name]));
      served.push(target.name);
      return { response: rawResponse("{}"), servedBy: target.name };
    },
    { stats: plan.stats },
  );
}

function tally(names: Array<string | undefined>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[String(name)] = (counts[String(name)] ?? 0) + 1;
  return counts;
}

describe("routing strategies", () => {
  it("priority tries the deployments in order, then the fallbacks", async () => {
    const table = createModelTable(deployments("priority", ["groq/llama", "openai/gpt-4o-mini"], ["local"]) as never);
    expect((await table.plan("pool")).targets.map((target) => target.name)).toEqual(["groq/llama", "openai/gpt-4o-mini", "local"]);
    expect(table.aliases()).toEqual(["pool"]);
    expect(table.configured("pool")?.map((target) => target.name)).toEqual(["groq/llama", "openai/gpt-4o-mini", "local"]);
  });

  it("weighted 3:1 sends 75 % ± 10 % of 400 calls to the heavier target, the other next", async () => {
    for (const random of [seeded(1), seeded(42), Math.random]) {
      const table = createModelTable(
        deployments("weighted", [
          { target: "groq/llama", weight: 3 },
          { target: "openai/gpt-4o-mini", weight: 1 },
        ]) as never,
        { random },
      );
      const plans = await Promise.all(Array.from({ length: 400 }, () => table.plan("pool")));
      const counts = tally(plans.map((plan) => plan.targets[0]?.name));
      expect(counts["groq/llama"]).toBeGreaterThanOrEqual(270);
      expect(counts["groq/llama"]).toBeLessThanOrEqual(330);
      // The one not chosen is the next attempt.
      for (const plan of plans) expect(plan.targets).toHaveLength(2);
    }
  });

  it("least-busy never picks a target with more calls in flight", async () => {
    const stats = new MemoryRoutingStats();
    const table = createModelTable(deployments("least-busy", ["a/m", "b/m", "c/m"]) as never, { stats });
    const open = [];
    for (let call = 0; call < 30; call++) {
      const chosen = (await firstOf(table)) as string;
      const counts = stats.inFlight(["a/m", "b/m", "c/m"]);
      expect(counts[["a/m", "b/m", "c/m"].indexOf(chosen)]).toBe(Math.min(...counts));
      open.push(stats.start(chosen));
      // Some calls end: the counts move both ways.
      if (call % 4 === 3) open.splice(call % open.length, 1)[0]?.end();
    }
  });

  it("least-busy counts the calls of every process on one Redis", async () => {
    const prefix = `test:routing:${randomUUID()}:`;
    const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    try {
      const [first, second] = clients.map((redis) =>
        createModelTable(deployments("least-busy", ["a/m", "b/m"]) as never, { stats: new RedisRoutingStats(redis, prefix) }),
      ) as [ReturnType<typeof createModelTable>, ReturnType<typeof createModelTable>];
      const firstStats = new RedisRoutingStats(clients[0] as Redis, prefix);
      // Process one holds two calls on a/m and one on b/m: process two must pick b/m.
      const held = [await firstStats.start("a/m"), await firstStats.start("a/m"), await firstStats.start("b/m")];
      expect(await firstOf(second)).toBe("b/m");
      const onB = await new RedisRoutingStats(clients[1] as Redis, prefix).start("b/m");
      const another = await new RedisRoutingStats(clients[1] as Redis, prefix).start("b/m");
      expect(await firstOf(first)).toBe("a/m");
      for (const call of [...held, onB, another]) call.end();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await new RedisRoutingStats(clients[0] as Redis, prefix).inFlight(["a/m", "b/m"])).toEqual([0, 0]);
    } finally {
      const keys = await clients[0]!.keys(`*${prefix}*`);
      if (keys.length > 0) await clients[0]!.del(...keys);
      for (const client of clients) client.disconnect();
    }
  });

  it("latency figures are shared by every process on one Redis: one measures, the other routes by it", async () => {
    const prefix = `test:routing:${randomUUID()}:`;
    const clients = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    try {
      // Two processes' tables (their own clients and figures), no exploration (random 0.5 ≥ 4 %).
      const [measuring, routing] = clients.map((redis) =>
        createModelTable(deployments("latency", ["slow/m", "fast/m"]) as never, {
          stats: new RedisRoutingStats(redis, prefix),
          random: () => 0.5,
        }),
      ) as [ReturnType<typeof createModelTable>, ReturnType<typeof createModelTable>];
      const delays: Record<string, number> = { "slow/m": 60, "fast/m": 1 };
      const served: string[] = [];
      // Process one serves: the unmeasured target first, so both get measured in two calls.
      for (let index = 0; index < 4; index++) await serveDelayed(measuring, delays, served);
      expect(served.slice(0, 2).sort()).toEqual(["fast/m", "slow/m"]);
      // Samples are written without waiting for Redis: let them land.
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Process two never served a call: with its own figures it would try the unmeasured slow/m first.
      expect(await firstOf(routing)).toBe("fast/m");
      const figures = await new RedisRoutingStats(clients[1] as Redis, prefix).latencies(["slow/m", "fast/m", "none/m"]);
      expect(figures[0]).toBeGreaterThan(figures[1] as number);
      expect(figures[2]).toBeUndefined();
      // A sample from process two moves the same average (0.2 of the way), which process one then reads.
      const before = figures[1] as number;
      new RedisRoutingStats(clients[1] as Redis, prefix).recordLatency("fast/m", before + 1000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [after] = await new RedisRoutingStats(clients[0] as Redis, prefix).latencies(["fast/m"]);
      expect(after).toBeCloseTo(before + 200, 6);
      expect(await firstOf(measuring)).toBe("slow/m");
    } finally {
      const keys = await clients[0]!.keys(`*${prefix}*`);
      if (keys.length > 0) await clients[0]!.del(...keys);
      for (const client of clients) client.disconnect();
    }
  });

  it("latency falls back to this process's own figures when Redis cannot answer", async () => {
    const failing = { eval: async () => Promise.reject(new Error("connection is closed")) };
    const stats = new RedisRoutingStats(failing as never, `test:routing:${randomUUID()}:`);
    stats.recordLatency("slow/m", 80);
    stats.recordLatency("fast/m", 5);
    expect(await stats.latencies(["slow/m", "fast/m"])).toEqual([80, 5]);
    const table = createModelTable(deployments("latency", ["slow/m", "fast/m"]) as never, { stats, random: () => 0.5 });
    expect(await firstOf(table)).toBe("fast/m");
  });

  it("latency sends at least 80 % to the fast target after warm-up, at most 5 % elsewhere", async () => {
    const stats = new MemoryRoutingStats();
    const options: ModelTableOptions = { stats, random: seeded(7) };
    const table = createModelTable(deployments("latency", ["slow/m", "fast/m", "slower/m"]) as never, options);
    const delays: Record<string, number> = { "slow/m": 25, "fast/m": 2, "slower/m": 40 };
    const served: string[] = [];
    const call = () => serveDelayed(table, delays, served);
    // Warm-up: every target is measured once, unmeasured first.
    for (let index = 0; index < 3; index++) await call();
    expect(new Set(served)).toEqual(new Set(["slow/m", "fast/m", "slower/m"]));
    served.length = 0;
    for (let index = 0; index < 100; index++) await call();
    const counts = tally(served);
    expect(counts["fast/m"]).toBeGreaterThanOrEqual(80);
    // Exploration over many plans (no waiting): at most 5 % go elsewhere.
    const picks = await Promise.all(Array.from({ length: 2000 }, () => firstOf(table)));
    expect(tally(picks)["fast/m"]).toBeGreaterThanOrEqual(1900);
    expect(tally(picks)["fast/m"]).toBeLessThan(2000);
  });

  it("cost picks the cheapest by the price table for the call's tokens, unpriced last", async () => {
    const table = createModelTable(
      deployments("cost", ["ollama/llama3", "openai/gpt-4o", "openai/gpt-4o-mini", "anthropic/claude-haiku-4-5"]) as never,
      {
        prices: DEFAULT_PRICES,
      },
    );
    const plan = await table.plan("pool", { inputTokens: 2000, outputTokens: 300 });
    expect(plan.targets.map((target) => target.name)).toEqual([
      "openai/gpt-4o-mini",
      "anthropic/claude-haiku-4-5",
      "openai/gpt-4o",
      "ollama/llama3",
    ]);
    // A table with a price of its own changes the choice.
    const cheaperLocal = createModelTable(deployments("cost", ["openai/gpt-4o-mini", "ollama/llama3"]) as never, {
      prices: { ...DEFAULT_PRICES, llama3: { input: 0, output: 0 } },
    });
    expect(await firstOf(cheaperLocal)).toBe("ollama/llama3");
  });

  it("moves a target whose keys all cool or are disabled after the usable ones", async () => {
    const table = createModelTable(deployments("priority", ["cooling/m", "ready/m"], ["local"]) as never, {
      usable: (target) => Promise.resolve(!target.name.startsWith("cooling/")),
    });
    expect((await table.plan("pool")).targets.map((target) => target.name)).toEqual(["ready/m", "local", "cooling/m"]);
  });
});
