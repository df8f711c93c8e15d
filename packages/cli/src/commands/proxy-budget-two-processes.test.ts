import { randomBytes } from "node:crypto";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { reportedUsage, streamedMessagesCall } from "@conduit-ai/proxy/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";

// Budgets exact across processes, end to end: two real processes (`conduit proxy` on hono, `conduit serve` on fastify)
// on one Redis, 200 concurrent *streamed* /v1/messages against a $1.00 budget, one stream in four
// cancelled by its client mid-way. Spend stays within the budget plus one call, and the recorded
// spend equals Σ (what upstream reported × price) to 1e-9 USD, cancelled streams included.
const ADMIN_KEY = `admin-${randomBytes(24).toString("hex")}`;
const ACCOUNT_KEY = "sk-ant-two-processes";
const prefix = `test:${randomBytes(6).toString("hex")}:`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MODEL = "claude-sonnet-4-5";
// $1,000 per million tokens of every kind: one token is $0.001, so costs are exact in pico-dollars.
const TOKEN_USD = 0.001;
let anthropic: FakeAnthropic;
let urls: string[];

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  anthropic.credentials.add(ACCOUNT_KEY);
  anthropic.eventGapMs = 4;
  anthropic.extraDeltas = 12;
  const config = writeConfig({
    proxy: {
      enabled: true,
      store: "redis",
      upstream: { anthropic: anthropic.url },
      accounts: [{ id: "claude-1", type: "api-key", apiKey: ACCOUNT_KEY }],
    },
    keys: { store: "redis" },
    admin: { keys: [ADMIN_KEY] },
    prices: { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } },
  });
  const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix };
  const processes = [
    spawnConduit(["proxy", "--config", config, "--port", "0", "--host", "127.0.0.1"], env, "Conduit proxy listening on "),
    spawnConduit(["serve", "--config", config, "--port", "0", "--host", "127.0.0.1", "--framework", "fastify"], env),
  ];
  urls = [];
  for (const process of processes) urls.push(`http://127.0.0.1:${portOf(await process.ready)}`);
});

afterAll(async () => {
  killLeftovers();
  await anthropic?.close();
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

async function admin(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${urls[0]}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function mintKey(policy: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await admin("/admin/keys", { method: "POST", body: JSON.stringify({ name: "two-processes", ...policy }) });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; key: string };
}

const CALL_BODY = JSON.stringify({ model: MODEL, max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] });
/** What the gate reserves for one call: the body's bytes ÷ 4 as input tokens, plus max_tokens. */
const RESERVATION_USD = (Math.ceil(Buffer.byteLength(CALL_BODY) / 4) + 16) * TOKEN_USD;

/** What upstream reported in the bytes it sent, priced at TOKEN_USD for every kind of token. */
function upstreamCost(sent: Buffer): number {
  const usage = reportedUsage(sent);
  return (usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens) * TOKEN_USD;
}

/** `count` calls, `concurrency` at a time, alternating between the two processes; every `cancelEvery`-th one is cut. */
async function calls(key: string, count: number, concurrency: number, cancelEvery: number) {
  const outcomes: Array<{ status: number; errorType?: string }> = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++)
      outcomes.push(await streamedMessagesCall(urls[index % 2] as string, key, CALL_BODY, index % cancelEvery === cancelEvery - 1));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // Cut streams settle when their upstream body is cut: give both processes a moment.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return outcomes;
}

async function spentUsd(id: string): Promise<number> {
  return ((await admin(`/admin/keys/${id}`)).body.data as { spend: Array<{ spentUsd: number }> }).spend[0]?.spentUsd ?? Number.NaN;
}

describe("governance exact across two processes on one Redis, through /v1/messages streams", { timeout: 180_000 }, () => {
  it("200 concurrent streams against a $1.00 budget: spend ≤ $1.00 + one call, recorded = Σ upstream usage × price", async () => {
    const key = await mintKey({ budgets: [{ usd: 1, window: "total" }] });
    const before = anthropic.exchanges.length;
    const outcomes = await calls(key.key, 200, 200, 4);
    const served = outcomes.filter((outcome) => outcome.status === 200).length;
    const refused = outcomes.filter((outcome) => outcome.status === 429);
    expect(served + refused.length).toBe(200);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused.map((outcome) => outcome.errorType))).toEqual(new Set(["budget_exceeded"]));

    const costs = anthropic.exchanges.slice(before).map((exchange) => upstreamCost(exchange.sent));
    expect(costs).toHaveLength(served);
    const spent = await spentUsd(key.id);
    expect(spent).toBeLessThanOrEqual(1 + Math.max(...costs));
    expect(Math.abs(spent - costs.reduce((sum, cost) => sum + cost, 0))).toBeLessThan(1e-9);
  });

  it("the budget is used up by real spend, cut streams priced by what upstream had sent, nothing leaked", async () => {
    const key = await mintKey({ budgets: [{ usd: 1, window: "total" }] });
    const before = anthropic.exchanges.length;
    const outcomes = await calls(key.key, 200, 24, 2);
    // Then one at a time until refused: with nothing in flight, only real spend can refuse. A refusal
    // while the spend still leaves room for a reservation means a cut stream's reservation is still being
    // settled (late on a loaded machine): asked again until the deadline; one never settled fails below.
    const deadline = Date.now() + 15_000;
    for (let index = 0; index < 60; index++) {
      const outcome = await streamedMessagesCall(urls[index % 2] as string, key.key, CALL_BODY, false);
      if (outcome.status === 429 && Date.now() < deadline && (await spentUsd(key.id)) <= 1 - RESERVATION_USD) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        index--;
        continue;
      }
      outcomes.push(outcome);
      if (outcome.status === 429) break;
    }
    const costs = anthropic.exchanges.slice(before).map((exchange) => upstreamCost(exchange.sent));
    const spent = await spentUsd(key.id);
    const largest = Math.max(...costs);
    expect(costs).toHaveLength(outcomes.filter((outcome) => outcome.status === 200).length);
    expect(Math.abs(spent - costs.reduce((sum, cost) => sum + cost, 0))).toBeLessThan(1e-9);
    expect(spent).toBeLessThanOrEqual(1 + largest);
    // Reservations of cut streams were settled, not left holding the budget: the spend reached it.
    expect(outcomes.at(-1)?.status).toBe(429);
    expect(spent).toBeGreaterThan(1 - RESERVATION_USD);
    expect(costs.filter((cost) => cost < largest).length).toBeGreaterThan(0);
  });

  it("rpm is exact to the request across both processes", async () => {
    const key = await mintKey({ limits: { rpm: 37 } });
    if (Date.now() % 60_000 > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
    const outcomes = await calls(key.key, 80, 80, 1_000);
    expect(outcomes.filter((outcome) => outcome.status === 200)).toHaveLength(37);
    expect(outcomes.filter((outcome) => outcome.status === 429)).toHaveLength(43);
  });
});
