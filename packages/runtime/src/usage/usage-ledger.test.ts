import { randomUUID } from "node:crypto";
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { UsageLedgerRecord } from "@conduit-ai/server-core";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime } from "../create-runtime.js";
import { MemoryUsageLedger } from "./memory-usage-ledger.js";
import { RedisUsageLedger } from "./redis-usage-ledger.js";
import type { UsageLedger } from "./usage-ledger.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const HOUR = 3_600_000;
const base = Date.UTC(2030, 0, 10, 12, 0, 0);

function call(overrides: Partial<UsageLedgerRecord> = {}): UsageLedgerRecord {
  return {
    provider: "openai",
    model: "gpt-4o-mini",
    operation: "generate",
    inputTokens: 1000,
    outputTokens: 500,
    latencyMs: 120,
    costUsd: 0.00045,
    timestamp: base,
    ...overrides,
  };
}

const redisClients: Redis[] = [];
afterAll(async () => {
  for (const client of redisClients) await client.quit();
});

function ledgers(now: () => number): Array<[string, () => UsageLedger]> {
  return [
    ["memory", () => new MemoryUsageLedger({ now })],
    [
      "redis",
      () => {
        const client = new Redis(REDIS_URL);
        redisClients.push(client);
        return new RedisUsageLedger(client, { keyPrefix: `test:${randomUUID()}:usage:`, now });
      },
    ],
  ];
}

describe.each(ledgers(() => base + 30 * 60_000))("%s usage ledger", (_name, create) => {
  it("adds calls up per provider × model × operation, cost exactly, latency total and max", async () => {
    const ledger = create();
    await ledger.record(call());
    await ledger.record(call({ latencyMs: 300, timestamp: base + 60_000 }));
    await ledger.record(call({ provider: "anthropic", model: "claude-haiku-4-5", costUsd: 0.0035, timestamp: base + 5 * 60_000 }));
    await ledger.record(call({ operation: "stream", failed: true, inputTokens: 0, outputTokens: 0, costUsd: 0 }));
    await ledger.record(call({ model: "llama3", costUsd: null }));
    const report = await ledger.query({ since: base - 60_000 });
    expect(report.granularityMs).toBe(60_000);
    const byKey = Object.fromEntries(report.entries.map((entry) => [`${entry.provider}/${entry.model}/${entry.operation}`, entry]));
    expect(byKey["openai/gpt-4o-mini/generate"]).toMatchObject({
      calls: 2,
      failedCalls: 0,
      inputTokens: 2000,
      outputTokens: 1000,
      costUsd: 0.0009,
      latencyMsTotal: 420,
      latencyMsMax: 300,
    });
    expect(byKey["openai/gpt-4o-mini/stream"]).toMatchObject({ calls: 1, failedCalls: 1, inputTokens: 0 });
    expect(byKey["openai/llama3/generate"]).toMatchObject({ calls: 1, unpricedCalls: 1, costUsd: 0 });
    expect(byKey["anthropic/claude-haiku-4-5/generate"]).toMatchObject({ calls: 1, costUsd: 0.0035 });
    expect(report.buckets.map((bucket) => bucket.calls)).toEqual([3, 1, 1]);
    expect(report.backend).toBe(_name);
  });

  it("filters by providers and by window", async () => {
    const ledger = create();
    await ledger.record(call({ timestamp: base - 2 * HOUR }));
    await ledger.record(call({ provider: "anthropic", model: "claude-haiku-4-5" }));
    await ledger.record(call());
    const lastHalfHour = await ledger.query({ since: base - 60_000, providers: ["openai"] });
    expect(lastHalfHour.entries.map((entry) => [entry.provider, entry.calls])).toEqual([["openai", 1]]);
    const lastDay = await ledger.query({ since: base - 20 * HOUR });
    expect(lastDay.entries.reduce((sum, entry) => sum + entry.calls, 0)).toBe(3);
    // Older than the minute buckets' 25 hours: answered from hour buckets.
    const week = await ledger.query({ since: base - 7 * 24 * HOUR });
    expect(week.granularityMs).toBe(HOUR);
    expect(week.entries.reduce((sum, entry) => sum + entry.calls, 0)).toBe(3);
    expect(new Date(week.from).getTime() % HOUR).toBe(0);
  });
});

describe("memory usage ledger bounds", () => {
  it("drops buckets past their retention and folds extra keys into (other)", async () => {
    let now = base;
    const ledger = new MemoryUsageLedger({ now: () => now, retentionMs: 48 * HOUR, maxKeysPerBucket: 3 });
    for (let index = 0; index < 5; index++) await ledger.record(call({ model: `m${index}`, costUsd: null }));
    const report = await ledger.query({ since: base - 60_000 });
    expect(report.entries.map((entry) => entry.model).sort()).toEqual(["(other)", "m0", "m1", "m2"]);
    expect(report.entries.find((entry) => entry.model === "(other)")?.calls).toBe(2);
    now = base + 72 * HOUR;
    await ledger.record(call({ timestamp: now }));
    const later = await ledger.query({ since: 0 });
    expect(later.entries.reduce((sum, entry) => sum + entry.calls, 0)).toBe(1);
  });
});

describe("runtime records every call", () => {
  it("counts generate, stream and embed calls with tokens, latency and the local provider's zero cost", async () => {
    const runtime = createRuntime({ env: {} });
    const generated = await runtime.generate({ input: { text: "count me please" } });
    for await (const _event of runtime.stream({ input: { text: "stream me" } })) {
      // drain
    }
    await runtime.embedMany({ texts: ["one two", "three"] });
    await expect(runtime.generate({ input: { text: "x" }, provider: "nope" })).rejects.toThrow();
    const report = await runtime.usage!.query({ since: Date.now() - 60_000 });
    const byOperation = Object.fromEntries(report.entries.map((entry) => [entry.operation, entry]));
    expect(byOperation.generate).toMatchObject({
      provider: "local",
      model: "echo",
      calls: 1,
      inputTokens: generated.usage.inputTokens,
      outputTokens: generated.usage.outputTokens,
      costUsd: 0,
    });
    expect(byOperation.stream).toMatchObject({ calls: 1, failedCalls: 0 });
    expect(byOperation.stream!.outputTokens).toBeGreaterThan(0);
    expect(byOperation.embed).toMatchObject({ calls: 1, inputTokens: 3, outputTokens: 0 });
    // A request refused before any provider call is not usage.
    expect(report.entries.reduce((sum, entry) => sum + entry.calls, 0)).toBe(3);
    await runtime.close();
  });

  it("counts a stream the client abandons, with no tokens when the provider never reported them", async () => {
    const runtime = createRuntime({ env: {} });
    for await (const _event of runtime.stream({ input: { text: "one two three four five" } })) break;
    const report = await runtime.usage!.query({ since: Date.now() - 60_000 });
    expect(report.entries).toEqual([expect.objectContaining({ operation: "stream", calls: 1, failedCalls: 0, outputTokens: 0 })]);
    await runtime.close();
  });

  it("keeps no ledger with usage: false", () => {
    expect(createRuntime({ env: {}, usage: false }).usage).toBeUndefined();
  });
});

describe("redis usage ledger while Redis is down", () => {
  it("drops records without failing the call and answers queries with 503 STORE_UNAVAILABLE", async () => {
    const client = new Redis("redis://127.0.0.1:1", { ...FAIL_FAST_REDIS_OPTIONS, retryStrategy: () => null });
    client.on("error", () => undefined);
    const ledger = new RedisUsageLedger(client, { keyPrefix: `test:${randomUUID()}:usage:` });
    await expect(ledger.record(call())).resolves.toBeUndefined();
    await expect(ledger.query({ since: 0 })).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      statusCode: 503,
      details: { store: "usage" },
    });
    client.disconnect();
  });
});

describe("two runtime processes on one Redis", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGTERM");
  });

  function runCalls(keyPrefix: string, calls: number): Promise<void> {
    const fixture = fileURLToPath(new URL("../testing/usage-calls.fixture.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@conduit-ai/source", fixture, String(calls)], {
      env: { ...process.env, REDIS_URL, REDIS_KEY_PREFIX: keyPrefix, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ANTHROPIC_API_KEY: "" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.push(child);
    return new Promise((resolve, reject) =>
      child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`fixture exited with ${code}`)))),
    );
  }

  it("add up in one ledger", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    await Promise.all([runCalls(keyPrefix, 7), runCalls(keyPrefix, 5)]);
    const runtime = createRuntime({ env: { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix } });
    const report = await runtime.usage!.query({ since: Date.now() - 10 * 60_000 });
    await runtime.close();
    expect(report.backend).toBe("redis");
    expect(report.entries).toEqual([
      expect.objectContaining({ provider: "local", model: "echo", operation: "generate", calls: 12, failedCalls: 0 }),
    ]);
    // Each call of the fixture is "call number N" → the same token count per call.
    expect(report.entries[0]!.inputTokens % 12).toBe(0);
  }, 60_000);
});
