import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeAnthropic, startFakeAnthropic } from "@conduit-ai/fakes";
import { reportedUsage, streamedMessagesCall } from "@conduit-ai/proxy/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conduitCommand } from "../../../../tools/test/conduit-command.js";
import { REDIS_TOPOLOGIES } from "../fixtures/redis-topology.js";

/**
 * Governance exact across two real processes (`conduit proxy` and `conduit serve --framework
 * fastify`) when Redis is a cluster or a sentinel-managed primary, as it is on one server
 * (packages/cli/src/commands/proxy-budget-two-processes.test.ts): 120 concurrent streamed
 * `/v1/messages` against a budget, one in four cut by its client; spend ≤ budget + one call and
 * equal to Σ what upstream reported × price; rpm exact to the request.
 */
const ADMIN_KEY = `admin-${randomBytes(24).toString("hex")}`;
const ACCOUNT_KEY = "sk-ant-topology-budget";
const MODEL = "claude-sonnet-4-5";
const TOKEN_USD = 0.001; // $1,000 per million tokens of every kind: costs exact in pico-dollars.
const BODY = JSON.stringify({ model: MODEL, max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] });

function spawnConduit(args: string[], env: Record<string, string>, ready: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [...conduitCommand(), ...args], {
    env: { ...process.env, PORT: "", REDIS_URL: "", REDIS_CLUSTER_NODES: "", REDIS_SENTINELS: "", REDIS_SENTINEL_MASTER: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const port = new RegExp(`${ready}http://127\\.0\\.0\\.1:(\\d+)`).exec(stdout)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.once("exit", (code) => reject(new Error(`conduit exited with ${code}: ${stderr}`)));
  });
  return { child, url };
}

/** What upstream reported in the bytes it sent, priced at TOKEN_USD for every kind of token. */
function upstreamCost(sent: Buffer): number {
  const usage = reportedUsage(sent);
  return (usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens) * TOKEN_USD;
}

describe.each(REDIS_TOPOLOGIES)("governance across two processes on Redis $name", { timeout: 180_000 }, ({ start }) => {
  let anthropic: FakeAnthropic;
  let stopTopology: () => Promise<void> = async () => undefined;
  const children: ChildProcess[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    anthropic.credentials.add(ACCOUNT_KEY);
    anthropic.eventGapMs = 4;
    anthropic.extraDeltas = 12;
    const topology = await start();
    stopTopology = topology.stop;
    const config = join(mkdtempSync(join(tmpdir(), "conduit-topology-budget-")), "conduit.json");
    writeFileSync(
      config,
      JSON.stringify({
        proxy: {
          enabled: true,
          store: "redis",
          upstream: { anthropic: anthropic.url },
          accounts: [{ id: "claude-1", type: "api-key", apiKey: ACCOUNT_KEY }],
        },
        keys: { store: "redis" },
        admin: { keys: [ADMIN_KEY] },
        prices: { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } },
      }),
    );
    const env = { ...topology.env, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString("hex")}:` };
    const spawned = [
      spawnConduit(["proxy", "--config", config, "--port", "0", "--host", "127.0.0.1"], env, "Conduit proxy listening on "),
      spawnConduit(
        ["serve", "--config", config, "--port", "0", "--host", "127.0.0.1", "--framework", "fastify"],
        env,
        "Conduit listening on ",
      ),
    ];
    children.push(...spawned.map((process) => process.child));
    urls = await Promise.all(spawned.map((process) => process.url));
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await anthropic?.close();
    await stopTopology();
  });

  const admin = async (path: string, body?: unknown) => {
    const response = await fetch(`${urls[0]}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as { data: Record<string, unknown> };
  };

  it("120 concurrent streams against a $1.00 budget: spend ≤ $1.00 + one call, recorded = Σ upstream usage × price", async () => {
    const key = (await admin("/admin/keys", { name: "topology", budgets: [{ usd: 1, window: "total" }] })).data as {
      id: string;
      key: string;
    };
    const before = anthropic.exchanges.length;
    const outcomes = await Promise.all(
      Array.from({ length: 120 }, (_, index) => streamedMessagesCall(urls[index % 2] as string, key.key, BODY, index % 4 === 3)),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const served = outcomes.filter((outcome) => outcome.status === 200).length;
    const refused = outcomes.filter((outcome) => outcome.status === 429);
    // Every call is served or refused for its budget, or fails closed: on the shared 2-core CI host a
    // 6-node cluster under this load can miss the store's 1 s command deadline (seen in 2 of 3 runs,
    // 10–20 calls), and such a call answers 503 "store is unavailable" before reaching upstream (the
    // exactness checks below count only what upstream served). Anything else shows here.
    const storeUnavailable = (outcome: (typeof outcomes)[number]) =>
      outcome.status === 503 && /store is unavailable/.test(outcome.message ?? "");
    expect(outcomes.filter((outcome) => outcome.status !== 200 && outcome.status !== 429 && !storeUnavailable(outcome))).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused.map((outcome) => outcome.errorType))).toEqual(new Set(["budget_exceeded"]));
    const costs = anthropic.exchanges.slice(before).map((exchange) => upstreamCost(exchange.sent));
    expect(costs).toHaveLength(served);
    const spent = ((await admin(`/admin/keys/${key.id}`)).data.spend as Array<{ spentUsd: number }>)[0]?.spentUsd ?? Number.NaN;
    expect(spent).toBeLessThanOrEqual(1 + Math.max(...costs));
    expect(Math.abs(spent - costs.reduce((sum, cost) => sum + cost, 0))).toBeLessThan(1e-9);
  });

  it("rpm is exact to the request across both processes", async () => {
    const key = (await admin("/admin/keys", { name: "topology-rpm", limits: { rpm: 23 } })).data as { key: string };
    if (Date.now() % 60_000 > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, (_, index) => streamedMessagesCall(urls[index % 2] as string, key.key, BODY, false)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 200)).toHaveLength(23);
    expect(outcomes.filter((outcome) => outcome.status === 429)).toHaveLength(37);
  });
});
