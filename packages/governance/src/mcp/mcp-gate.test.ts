import { randomBytes } from "node:crypto";
import { DEFAULT_PRICES, type GateAdmission, type GateRefusal } from "@conduit-ai/server-core";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { GovernanceGate } from "../gate/governance-gate.js";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord, TeamRecord } from "../records.js";
import type { GovernanceStore } from "../store/governance-store.js";
import { MemoryGovernanceStore } from "../store/memory-store.js";
import { RedisGovernanceStore } from "../store/redis-store.js";
import { MemoryUsageSink } from "../usage/memory-usage-sink.js";
import type { UsageEvent } from "../usage/usage-event.js";

// What the MCP gateway asks of governance: who a key is with its and its team's `mcp` policy
// (no counter touched), tool calls admitted by rpm and concurrency whatever the model allow-list,
// and settled as `kind: "tool"` usage events. On both stores.
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const namespace = `test:gov-mcp:${randomBytes(6).toString("hex")}`;
afterAll(async () => {
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const STORES: Array<[string, () => GovernanceStore]> = [
  ["memory", () => new MemoryGovernanceStore()],
  ["redis", () => new RedisGovernanceStore({ redis, namespace: `${namespace}:${randomBytes(3).toString("hex")}` })],
];
/** Waits out the last seconds of a minute so a per-minute count stays in one window. */
async function awayFromMinuteEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
}
const admitted = (decision: GateAdmission | GateRefusal): decision is GateAdmission => !("refused" in decision);

describe.each(STORES)("governance for the MCP gateway [%s store]", (_name, makeStore) => {
  async function setup(key: Partial<KeyRecord>, team?: Partial<TeamRecord>) {
    const store = makeStore();
    const events: UsageEvent[] = [];
    const gate = new GovernanceGate({
      store,
      usage: new MemoryUsageSink(),
      prices: DEFAULT_PRICES,
      onUsage: (event) => events.push(event),
    });
    if (team) await store.createTeam({ id: "red", name: "Red", createdAt: new Date().toISOString(), ...team });
    const credential = newKeySecret("sk-conduit-");
    const record: KeyRecord = {
      id: `k_${randomBytes(4).toString("hex")}`,
      name: "agent",
      hint: credential.slice(-4),
      createdAt: new Date().toISOString(),
      ...(team ? { team: "red" } : {}),
      ...key,
    };
    await store.createKey(record, keyDigest(credential, undefined));
    return { store, gate, credential, record, events };
  }

  it("identifyCredential: the key's and its team's mcp policies, nothing counted; unknown and revoked credentials are undefined", async () => {
    const { gate, credential, record, store } = await setup(
      { mcp: { tools: ["github__*", "!github__delete_*"] }, limits: { rpm: 1 } },
      { mcp: { servers: ["github", "files"] } },
    );
    await awayFromMinuteEdge();
    for (let call = 0; call < 3; call++) {
      expect(await gate.identifyCredential(credential)).toEqual({
        keyId: record.id,
        name: "agent",
        team: "red",
        mcp: [{ tools: ["github__*", "!github__delete_*"] }, { servers: ["github", "files"] }],
      });
    }
    // Three identifications later the rpm of 1 still admits: identifying counts nothing.
    expect(admitted(await gate.admit({ credential, surface: "mcp", estimatedInputTokens: 0, maxOutputTokens: 0 }))).toBe(true);
    expect(await gate.identifyCredential("sk-conduit-not-a-key-0123456789")).toBeUndefined();
    await store.deleteKey(record.id);
    expect(await gate.identifyCredential(credential)).toBeUndefined();
  });

  it("a tool call (surface mcp) passes a model allow-list, counts against rpm, and settles as a kind tool event without tokens or cost", async () => {
    await awayFromMinuteEdge();
    const { gate, credential, events, record } = await setup({ models: ["claude-*"], limits: { rpm: 2 } });
    const first = await gate.admit({ credential, surface: "mcp", estimatedInputTokens: 0, maxOutputTokens: 0 });
    if (!admitted(first)) throw new Error(`refused: ${first.message}`);
    await first.settle({
      model: "github__search",
      target: "mcp/github",
      inputTokens: 0,
      outputTokens: 0,
      status: 200,
      latencyMs: 12,
      tool: { server: "github", name: "search" },
    });
    expect(events).toEqual([
      expect.objectContaining({
        key: record.id,
        kind: "tool",
        server: "github",
        tool: "search",
        model: "github__search",
        costUsd: 0,
        status: 200,
      }),
    ]);
    // A model call without a model is still refused by the allow-list: only tool calls skip it.
    const modelCall = await gate.admit({ credential, surface: "api", estimatedInputTokens: 1 });
    expect(modelCall).toMatchObject({ refused: true, reason: "model_not_allowed" });
    const second = await gate.admit({ credential, surface: "mcp", estimatedInputTokens: 0, maxOutputTokens: 0 });
    expect(admitted(second)).toBe(true);
    if (admitted(second)) await second.release();
    const third = await gate.admit({ credential, surface: "mcp", estimatedInputTokens: 0, maxOutputTokens: 0 });
    expect(third).toMatchObject({ refused: true, status: 429, reason: "rate_limited" });
  });
});
