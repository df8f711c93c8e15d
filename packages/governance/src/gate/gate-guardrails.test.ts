import { randomBytes } from "node:crypto";
import { DEFAULT_PRICES, type GateAdmission, type GateRefusal } from "@conduit-ai/server-core";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord, TeamRecord } from "../records.js";
import type { GovernanceStore } from "../store/governance-store.js";
import { MemoryGovernanceStore } from "../store/memory-store.js";
import { RedisGovernanceStore } from "../store/redis-store.js";
import { MemoryUsageSink } from "../usage/memory-usage-sink.js";
import { GovernanceGate } from "./governance-gate.js";

// The guardrail lists a key and its team name reach the surfaces in the admission's identity:
// the team's first, then the key's (so a key's `!name` can drop what its team added). On both stores.
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const namespace = `test:gov-guardrails:${randomBytes(6).toString("hex")}`;
afterAll(async () => {
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const STORES: Array<[string, () => GovernanceStore]> = [
  ["memory", () => new MemoryGovernanceStore()],
  ["redis", () => new RedisGovernanceStore({ redis, namespace: `${namespace}:${randomBytes(3).toString("hex")}` })],
];

describe.each(STORES)("gate identity guardrails [%s store]", (_name, makeStore) => {
  async function admit(key: Partial<KeyRecord>, team?: Partial<TeamRecord>) {
    const store = makeStore();
    const gate = new GovernanceGate({ store, usage: new MemoryUsageSink(), prices: DEFAULT_PRICES });
    if (team) await store.createTeam({ id: "red", name: "Red", createdAt: new Date().toISOString(), ...team });
    const credential = newKeySecret("sk-conduit-");
    const record: KeyRecord = {
      id: "k1",
      name: "agent",
      hint: "x",
      createdAt: new Date().toISOString(),
      ...(team ? { team: "red" } : {}),
      ...key,
    };
    await store.createKey(record, keyDigest(credential, undefined));
    const decision = (await gate.admit({
      credential,
      surface: "anthropic",
      model: "claude-haiku-4-5",
      estimatedInputTokens: 10,
      maxOutputTokens: 10,
    })) as GateAdmission | GateRefusal;
    if ("refused" in decision) throw new Error(decision.message);
    await decision.release();
    return decision.identity;
  }

  it("carries the team's list, then the key's", async () => {
    expect((await admit({ guardrails: ["!pii", "secrets"] }, { guardrails: ["pii", "webhook"] })).guardrails).toEqual([
      "pii",
      "webhook",
      "!pii",
      "secrets",
    ]);
  });

  it("carries none when neither names any", async () => {
    expect((await admit({}, {})).guardrails).toBeUndefined();
    expect((await admit({ guardrails: ["strict"] })).guardrails).toEqual(["strict"]);
  });
});
