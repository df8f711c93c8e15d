import { emptyUsage } from "@conduit-ai/server-core/pricing";
import { randomUUID } from "node:crypto";
import { RedisSessionStore, SessionManager } from "@conduit-ai/auth-providers";
import { RedisPoolStore } from "@conduit-ai/proxy";
import { RedisConversationStore, RedisUsageLedger } from "@conduit-ai/runtime";
import { RedisCacheStore, type RedisTopology, closeRedis, connectRedis, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisClusterTopology, startRedisCluster } from "../fixtures/redis-topology.js";

/**
 * Every shared store on a real Redis Cluster (3 primaries + 3 replicas), used by two clients
 * as two processes would: each store's multi-key scripts and transactions run (one slot per
 * script, or the cluster would answer CROSSSLOT), and what one client writes the other sees.
 */
let cluster: RedisClusterTopology;
let topology: RedisTopology;
const clients: Cluster[] = [];
const prefix = `test:${randomUUID()}:`;

/** A client of its own, connected (as `conduit serve` hands its stores one after `connectRedis`). */
async function client(): Promise<Cluster> {
  const made = await connectRedis<Cluster>(topology, { feature: "topology suite", from: import.meta.url });
  clients.push(made);
  return made;
}

beforeAll(async () => {
  cluster = await startRedisCluster();
  topology = redisTopologyFrom({ REDIS_CLUSTER_NODES: cluster.seeds }) as RedisTopology;
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((made) => closeRedis(made)));
  await cluster.stop();
}, 30_000);

describe("shared state on Redis Cluster, two clients", () => {
  it("a fresh client serves its first burst without an error while its node connections open", async () => {
    // The cluster client opens one connection per node lazily; a command for a node still
    // connecting is refused ("Connection is closed.") and must be retried shortly, not failed.
    const fresh = await client();
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        fresh.set(`${prefix}burst:${index}`, "1", "PX", 60_000).catch((error: Error) => failures.push(error.message)),
      ),
    );
    expect(failures).toEqual([]);
  });

  it("sessions: created by one, listed, evicted and destroyed for the other", async () => {
    const [one, two] = (await Promise.all(
      [0, 1].map(
        async () =>
          new SessionManager({ store: new RedisSessionStore(await client(), { keyPrefix: `${prefix}auth:` }), maxSessionsPerUser: 2 }),
      ),
    )) as [SessionManager, SessionManager];
    const user = { id: "ada", roles: ["reader"], permissions: [] };
    const first = await one.create(user);
    const second = await two.create(user);
    expect(await two.get(first.id)).toMatchObject({ id: first.id, userId: "ada" });
    const third = await one.create(user);
    // maxSessionsPerUser 2: the oldest went, atomically with the index.
    expect(new Set((await two.getUserSessions("ada")).map((session) => session.id))).toEqual(new Set([second.id, third.id]));
    await two.destroy(third.id);
    expect(await one.get(third.id)).toBeUndefined();
  });

  it("conversation memory: appended by one, read, listed and deleted by the other", async () => {
    const [one, two] = [
      new RedisConversationStore(await client(), { keyPrefix: `${prefix}memory:` }),
      new RedisConversationStore(await client(), { keyPrefix: `${prefix}memory:` }),
    ] as [RedisConversationStore, RedisConversationStore];
    const message = (content: string) => ({ role: "user" as const, content, timestamp: new Date().toISOString() });
    await one.append("s-1", [message("hello")]);
    await two.append("s-1", [message("again")]);
    await two.append("s-2", [message("other")]);
    expect((await one.history("s-1")).map((item) => item.content)).toEqual(["hello", "again"]);
    expect((await one.listSessions()).map((session) => session.id).sort()).toEqual(["s-1", "s-2"]);
    expect(await one.deleteSession("s-2")).toBe(true);
    expect(await two.getSession("s-2")).toBeUndefined();
    await expect(two.ping()).resolves.toBeUndefined();
  });

  it("response cache: set by one, served and deleted for the other", async () => {
    const [one, two] = [new RedisCacheStore(await client(), `${prefix}cache:`), new RedisCacheStore(await client(), `${prefix}cache:`)];
    const entry = {
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"ok":true}',
      ttlMs: 60_000,
      storedAt: Date.now(),
    };
    for (let index = 0; index < 20; index++) await one.set(`GET /item/${index}`, entry as never);
    for (let index = 0; index < 20; index++) expect(await two.get(`GET /item/${index}`)).toMatchObject({ body: '{"ok":true}' });
    await two.delete("GET /item/3");
    expect(await one.get("GET /item/3")).toBeUndefined();
  });

  it("usage ledger: two writers add up in one report", async () => {
    const ledgers = [
      new RedisUsageLedger(await client(), { keyPrefix: `${prefix}usage:` }),
      new RedisUsageLedger(await client(), { keyPrefix: `${prefix}usage:` }),
    ];
    const record = {
      provider: "openai",
      model: "gpt-test",
      operation: "generate" as const,
      inputTokens: 3,
      outputTokens: 5,
      latencyMs: 12,
      costUsd: null,
    };
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => (ledgers[index % 2] as RedisUsageLedger).record({ ...record, timestamp: Date.now() })),
    );
    const report = await (ledgers[0] as RedisUsageLedger).query({ since: Date.now() - 3_600_000 });
    expect(report.entries).toEqual([
      expect.objectContaining({ provider: "openai", model: "gpt-test", calls: 10, inputTokens: 30, outputTokens: 50 }),
    ]);
  });

  it("proxy pool: a cooldown set by one is honoured by the other (extend-only), and one of two refreshers gets the lock", async () => {
    const [one, two] = [new RedisPoolStore(await client(), `${prefix}proxy:`), new RedisPoolStore(await client(), `${prefix}proxy:`)];
    const until = Date.now() + 60_000;
    await one.extendCooldown("acct-a", until, "rate_limited");
    expect(await two.extendCooldown("acct-a", until - 30_000, "shorter")).toBe(until);
    const states = await two.readStates(["acct-a", "acct-b"]);
    expect(states["acct-a"]).toMatchObject({ cooldownUntil: until, cooldownReason: "rate_limited" });
    expect(states["acct-b"]).toMatchObject({ cooldownUntil: 0 });
    // One OAuth refresh: the lock is taken once across both, free again after release.
    const [lockOne, lockTwo] = await Promise.all([one.tryLock("refresh:acct-a", 10_000), two.tryLock("refresh:acct-a", 10_000)]);
    expect([lockOne, lockTwo].filter(Boolean)).toHaveLength(1);
    await (lockOne ?? lockTwo)?.();
    expect(await two.tryLock("refresh:acct-a", 10_000)).toBeTypeOf("function");
    await one.addUsage("acct-a", "claude-test", { ...emptyUsage(), input: 1, output: 2 }, 0.5);
    await two.addUsage("acct-a", "claude-test", { ...emptyUsage(), input: 1, output: 2 }, 0.5);
    expect(await one.readUsage()).toEqual([
      expect.objectContaining({ accountId: "acct-a", model: "claude-test", totals: expect.objectContaining({ requests: 2, cost: 1 }) }),
    ]);
  });
});
