import { randomUUID } from "node:crypto";
import { type BaseServerAdapter, createHealthRoutes } from "@conduit-ai/server-core";
import { RedisRateLimitStore, type RedisTopology, closeRedis, connectRedis, redisTopologyFrom } from "@conduit-ai/server-core/middleware";
import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADAPTERS } from "../adapters.js";
import { startRedisCluster, startRedisSentinel } from "../fixtures/redis-topology.js";
import { TEST_CONFIG, sleep } from "../harness.js";

/**
 * The store-outage contract of `store-outage.test.ts` (one Redis server) on the two other
 * topologies, on all four adapters: with the Redis rate limiter on a cluster or behind
 * sentinels and the store down (the shard holding the limiter's key lost with its replica; the
 * sentinel-managed primary lost with its replica, so no failover can help), every request
 * answers 503 `STORE_UNAVAILABLE` in the error envelope within the 1 s store deadline, and
 * `/api/health/ready` says 503 with the rate-limit store down. Recovery after a failover is
 * `failover-under-load.test.ts`'s.
 */
/** The limiter's client key: every request comes from loopback (the server's default key is the client address). */
const LIMITER_KEY = "127.0.0.1";

interface Outage {
  env: Record<string, string>;
  /** Takes the store down for `key`: its primary and every replica of it. */
  takeDown(key: string): Promise<void>;
  stop(): Promise<void>;
}

const topologies: Array<{ name: string; start(): Promise<Outage> }> = [
  {
    name: "cluster",
    start: async () => {
      const cluster = await startRedisCluster();
      return {
        env: { REDIS_CLUSTER_NODES: cluster.seeds },
        takeDown: async (key) => {
          const primary = await cluster.primaryFor(key);
          const doomed = [primary, ...(await cluster.replicasOf(primary))];
          await Promise.all(cluster.nodes.filter((node) => doomed.includes(node.port)).map((node) => node.kill()));
        },
        stop: cluster.stop,
      };
    },
  },
  {
    name: "sentinel",
    start: async () => {
      const group = await startRedisSentinel();
      return {
        env: { REDIS_SENTINELS: group.seeds, REDIS_SENTINEL_MASTER: group.name },
        takeDown: async () => {
          await Promise.all([group.primary.kill(), group.replica.kill()]);
        },
        stop: group.stop,
      };
    },
  },
];

async function timed(url: string): Promise<{ status: number; body: unknown; ms: number; retryAfter: string | null }> {
  const began = performance.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  const body = await response.json();
  return { status: response.status, body, ms: performance.now() - began, retryAfter: response.headers.get("retry-after") };
}

describe.each(topologies)("shared stores while Redis $name is down, on all four adapters", ({ start }) => {
  let outage: Outage | undefined;
  const clients: Array<Redis | Cluster> = [];
  const servers: Array<{ framework: string; adapter: BaseServerAdapter<unknown>; url(path: string): string }> = [];
  const prefix = `test:${randomUUID()}:`;

  beforeAll(async () => {
    outage = await start();
    const topology = redisTopologyFrom(outage.env) as RedisTopology;
    for (const { framework, create } of ADAPTERS) {
      const client = await connectRedis<Redis | Cluster>(topology, { feature: "outage suite", from: import.meta.url, bootWaitMs: 10_000 });
      clients.push(client);
      const adapter = create(undefined, {
        ...TEST_CONFIG,
        timeout: 5_000,
        rateLimit: {
          maxRequests: 1_000,
          windowMs: 600_000,
          store: new RedisRateLimitStore(client, { prefix }),
        },
      });
      adapter.registerRoute({ method: "GET", path: "/ping", handler: () => ({ pong: true }) });
      adapter.registerRouteGroup(createHealthRoutes(adapter));
      await adapter.start();
      const port = adapter.address()?.port ?? 0;
      servers.push({ framework, adapter, url: (path) => `http://127.0.0.1:${port}${path}` });
    }
  }, 120_000);

  afterAll(async () => {
    for (const { adapter } of servers.splice(0)) await adapter.stop().catch(() => undefined);
    for (const client of clients.splice(0)) await closeRedis(client);
    await outage?.stop();
  }, 30_000);

  it("up: 200 and ready on every adapter; down: 503 STORE_UNAVAILABLE within the store deadline, readiness 503 with the store down", async () => {
    for (const server of servers) {
      expect((await timed(server.url("/api/ping"))).status, server.framework).toBe(200);
      expect((await timed(server.url("/api/health/ready"))).status, server.framework).toBe(200);
    }
    // The limiter's Redis key: the store's `w:` window of the one client address.
    await outage?.takeDown(`${prefix}w:${LIMITER_KEY}`);
    // Past the cluster client's 2 s slot-map refresh: it has dropped the dead nodes from its pool
    // by then, and a readiness probe that pinged only the primaries left would wrongly say up.
    await sleep(3_000);
    for (const server of servers) {
      const refused = await timed(server.url("/api/ping"));
      expect(refused.status, server.framework).toBe(503);
      expect(refused.ms, server.framework).toBeLessThan(1_500);
      expect(refused.retryAfter).toBe("2");
      expect(refused.body).toMatchObject({ error: { code: "STORE_UNAVAILABLE", details: { store: "rate-limit" } } });
      expect(JSON.stringify(refused.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|CLUSTERDOWN/);
      const ready = await timed(server.url("/api/health/ready"));
      expect(ready.status, server.framework).toBe(503);
      expect(ready.body).toMatchObject({
        error: { details: { dependencies: { rateLimitStore: { status: "down", required: true } } } },
      });
    }
  }, 60_000);
});
