import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeRedis, connectRedis, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import type { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { type GovernedGateway, startGovernedGateway } from "../fixtures/governed-gateway.js";
import { redisCli } from "../fixtures/redis-processes.js";
import { type RedisSentinelTopology, startRedisSentinel } from "../fixtures/redis-sentinel.js";
import { type ThrowawayRedis, startThrowawayRedis } from "../fixtures/throwaway-redis.js";
import { type RunningServer, type StartOptions, forEachAdapter } from "../harness.js";

/**
 * The connection to Redis is lost between a call's admission and its settlement — the server
 * restarted (killed, back with its append-only file), or a Sentinel failover — while the call is
 * answered. The settlement waits and is applied once the store is back: afterwards the key's
 * spend is exactly what upstream reported × price, the history has its one row, no reservation
 * is left on the `total` budget and no lease holds the key's one concurrency slot.
 */
const MODEL = "claude-sonnet-4-5";
/** $1,000 per million tokens of every kind: every cost an exact count of pico-dollars. */
const PRICES = { [MODEL]: { input: 1000, output: 1000, cacheRead: 1000, cacheWrite: 1000 } };
const BODY = { model: MODEL, max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] };

/** Reported tokens of every kind in one streamed answer (the fake's `message_start`, then `message_delta`). */
function reportedTokens(sent: Buffer): number {
  const text = sent.toString();
  const last = (name: string) => Number([...text.matchAll(new RegExp(`"${name}":(\\d+)`, "g"))].at(-1)?.[1] ?? 0);
  return last("input_tokens") + last("output_tokens") + last("cache_read_input_tokens") + last("cache_creation_input_tokens");
}

interface Loss {
  /** Called once upstream has the request: the store connection goes. */
  lose(): Promise<void>;
  /** Called once the answer is out: the store comes back. */
  recover(): Promise<void>;
}

forEachAdapter("governance settlements survive losing Redis mid-call", ({ start }) => {
  let gateway: GovernedGateway | undefined;
  let redis: Redis | undefined;
  const teardown: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await gateway?.close().catch(() => undefined);
    if (redis) await closeRedis(redis);
    for (const step of teardown.splice(0)) await step();
    gateway = undefined;
    redis = undefined;
  });

  async function callThroughLoss(
    startServer: (options?: StartOptions) => Promise<RunningServer>,
    env: Record<string, string>,
    loss: (gateway: GovernedGateway, keyId: string) => Loss,
  ) {
    const topology = redisTopologyFrom(env);
    if (!topology) throw new Error("no topology");
    redis = await connectRedis<Redis>(topology, { feature: "governance" });
    gateway = await startGovernedGateway(startServer, {
      store: "redis",
      redis,
      prices: PRICES,
      settlementSpillFile: join(mkdtempSync(join(tmpdir(), "conduit-settle-")), "spill.ndjson"),
    });
    const server = gateway;
    server.anthropic.eventGapMs = 50;
    const { id, key } = await server.mint({ budgets: [{ usd: 10, window: "total" }], limits: { concurrency: 1, queueTimeoutMs: 100 } });
    const { lose, recover } = loss(server, id);
    const call = server.post("/v1/messages", key, BODY);
    await expect.poll(() => server.anthropic.requests.length, { timeout: 5_000, interval: 5 }).toBe(1);
    await lose();
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("message_stop");
    // Answered while the store is away: the history row is written at once, the settlement waits.
    const history = () => server.governance.usage.query({ groupBy: "key", from: new Date(0), to: new Date(Date.now() + 60_000) });
    await expect.poll(history, { timeout: 5_000 }).toMatchObject([{ group: id, requests: 1 }]);
    expect(server.governance.gate.pendingSettlements).toBe(1);
    await recover();
    await expect.poll(() => server.governance.gate.pendingSettlements, { timeout: 20_000 }).toBe(0);

    const cost = reportedTokens(server.anthropic.exchanges[0]?.sent ?? Buffer.alloc(0)) * 0.001;
    expect(cost).toBeGreaterThan(0);
    expect((await server.spentUsd(id)).total).toBeCloseTo(cost, 9);
    expect(await history()).toEqual([expect.objectContaining({ group: id, requests: 1, costUsd: expect.closeTo(cost, 9) })]);
    const tag = `{${server.namespace}:k:${id}}`;
    expect(await redis.hget(`${tag}:ctr:key:${id}:total`, "res")).toBe("0");
    expect(await redis.zcard(`${tag}:lease:key:${id}`)).toBe(0);
    // The key's one slot is free at once (not after a lease's 15 minutes).
    expect((await server.post("/v1/messages", key, { ...BODY, stream: false })).status).toBe(200);
  }

  it("redis-server killed and restarted (append-only file) between admit and settle: spend, history row, reservation and lease exact", async () => {
    const throwaway: ThrowawayRedis = await startThrowawayRedis({ persistent: true });
    teardown.push(() => throwaway.stop());
    await callThroughLoss(start, { REDIS_URL: throwaway.url }, () => ({
      lose: () => throwaway.kill(),
      recover: () => throwaway.restart(),
    }));
  }, 60_000);

  it("a Sentinel failover between admit and settle: spend, history row, reservation and lease exact on the promoted replica", async () => {
    const group: RedisSentinelTopology = await startRedisSentinel();
    teardown.push(() => group.stop());
    await callThroughLoss(start, { REDIS_SENTINELS: group.seeds, REDIS_SENTINEL_MASTER: group.name }, (server, keyId) => ({
      lose: async () => {
        // The admission is on the replica before its primary goes (replication is asynchronous).
        const lease = `{${server.namespace}:k:${keyId}}:lease:key:${keyId}`;
        await expect.poll(async () => await redisCli(group.replica.port, "ZCARD", lease), { timeout: 5_000 }).toBe("1");
        await group.primary.kill();
      },
      recover: async () => {
        await group.waitForPromotion(group.primary.port);
      },
    }));
  }, 90_000);
});
