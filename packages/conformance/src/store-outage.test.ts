import { randomUUID } from "node:crypto";
import { createRuntime } from "@conduit-ai/runtime";
import { type BaseServerAdapter, createAgentRoutes, createHealthRoutes, createMemoryRoutes, silentLogger } from "@conduit-ai/server-core";
import { RedisCacheStore, RedisRateLimitStore, createCacheMiddleware } from "@conduit-ai/server-core/middleware";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import { attachWebSocket } from "@conduit-ai/websocket";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { type ThrowawayRedis, startThrowawayRedis } from "./fixtures/throwaway-redis.js";
import { WsClient, upgradeRefusal } from "./fixtures/ws-client.js";
import { forEachAdapter, sleep } from "./harness.js";

let redis: ThrowawayRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startThrowawayRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis.stop();
});
afterEach(async () => {
  // Every test leaves Redis up for the next one.
  await redis.restart().catch(() => undefined);
});

function failFastClient(): Redis {
  const client = new Redis(redis.url, { ...FAIL_FAST_REDIS_OPTIONS });
  client.on("error", () => undefined);
  clients.push(client);
  return client;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const statusOf = async (url: string) => (await fetch(url)).status;
const ping = { method: "GET" as const, path: "/ping", handler: () => "pong" };

forEachAdapter("shared stores while Redis is down", ({ start }) => {
  it("Redis rate limiter, fail closed (default): 503 STORE_UNAVAILABLE at once (not the 408 of the request timeout), readiness down, recovery", async () => {
    const client = failFastClient();
    const server = await start({
      config: {
        timeout: 5_000,
        rateLimit: { maxRequests: 1_000, windowMs: 60_000, store: new RedisRateLimitStore(client, { prefix: `rl:${randomUUID()}:` }) },
      },
      setup: (adapter) => {
        adapter.registerRoute(ping);
        adapter.registerRouteGroup(createHealthRoutes(adapter));
        attachWebSocket(adapter, { runtime: createContractRuntime() });
      },
    });
    const ok = await fetch(server.url("/api/ping"));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("1000");
    const socket = await WsClient.open(server.port);

    await redis.kill();
    await until(() => client.status !== "ready", "the client to notice");
    const began = performance.now();
    const refused = await fetch(server.url("/api/ping"));
    const elapsedMs = performance.now() - began;
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: "STORE_UNAVAILABLE", category: "EXTERNAL", retryAfter: 2, details: { store: "rate-limit" } });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    console.log(`[${server.adapter.framework}] time to 503 with Redis down: ${elapsedMs.toFixed(1)} ms`);

    const ready = await fetch(server.url("/api/health/ready"));
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.details.dependencies.rateLimitStore).toMatchObject({ status: "down", required: true });
    expect(await statusOf(server.url("/ready"))).toBe(503);
    // The WebSocket surface fails closed the same way.
    socket.send({ type: "generate", id: "g1", payload: { input: { text: "hi" } } });
    expect((await socket.waitFor((message) => message.id === "g1"))[0]?.payload).toMatchObject({
      code: "STORE_UNAVAILABLE",
      retryAfter: 2,
    });
    const upgrade = await upgradeRefusal(server.port);
    expect(upgrade?.status).toBe(503);
    expect(upgrade?.body.error.code).toBe("STORE_UNAVAILABLE");
    socket.close();

    await redis.restart();
    await until(async () => (await statusOf(server.url("/api/ping"))) === 200, "recovery");
    expect(await statusOf(server.url("/ready"))).toBe(200);
  });

  it("Redis rate limiter with failOpen: true serves uncounted while Redis is down; readiness stays ready (degraded)", async () => {
    const client = failFastClient();
    const server = await start({
      config: {
        rateLimit: {
          maxRequests: 1_000,
          windowMs: 60_000,
          failOpen: true,
          store: new RedisRateLimitStore(client, { prefix: `rl:${randomUUID()}:` }),
        },
      },
      setup: (adapter) => {
        adapter.registerRoute(ping);
        adapter.registerRouteGroup(createHealthRoutes(adapter));
      },
    });
    expect(await statusOf(server.url("/api/ping"))).toBe(200);
    await redis.kill();
    await until(() => client.status !== "ready", "the client to notice");
    const open = await fetch(server.url("/api/ping"));
    expect(open.status).toBe(200);
    expect(open.headers.get("x-ratelimit-limit")).toBeNull();
    const ready = await fetch(server.url("/api/health/ready"));
    expect(ready.status).toBe(200);
    expect((await ready.json()).data.dependencies.rateLimitStore).toMatchObject({ status: "down", required: false });
    await redis.restart();
    await until(async () => (await fetch(server.url("/api/ping"))).headers.get("x-ratelimit-limit") === "1000", "counting again");
  });

  it("Redis conversation memory: memory routes 503 STORE_UNAVAILABLE, generation degrades (200 without history), readiness down; recovery", async () => {
    const runtime = createRuntime({ env: {}, redis: redis.url, redisKeyPrefix: `mem:${randomUUID()}:`, logger: silentLogger });
    let adapterRef: BaseServerAdapter<unknown> | undefined;
    const server = await start({
      runtime,
      config: { timeout: 5_000, rateLimit: { enabled: false } },
      setup: (adapter) => {
        adapterRef = adapter;
        adapter.registerRouteGroup(createAgentRoutes(runtime));
        adapter.registerRouteGroup(createMemoryRoutes(runtime));
        adapter.registerRouteGroup(createHealthRoutes(adapter));
      },
    });
    const execute = (text: string) =>
      fetch(server.url("/api/agent/execute"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text }, sessionId: "s1" }),
      });
    expect((await execute("first")).status).toBe(200);
    expect(await statusOf(server.url("/api/memory/sessions/s1"))).toBe(200);

    await redis.kill();
    await until(async () => (await statusOf(server.url("/api/memory/sessions"))) === 503, "memory to report the outage");
    const sessions = await fetch(server.url("/api/memory/sessions"));
    expect((await sessions.json()).error).toMatchObject({ code: "STORE_UNAVAILABLE", retryAfter: 2, details: { store: "memory" } });
    const degraded = await execute("during the outage");
    expect(degraded.status).toBe(200);
    // Said in the answer, not only in the log.
    expect(degraded.headers.get("x-conduit-memory")).toBe("unavailable");
    const degradedBody = await degraded.json();
    expect(degradedBody.data.content).toContain("during the outage");
    expect(degradedBody.metadata).toMatchObject({ memory: "unavailable", requestId: expect.any(String) });
    expect(degradedBody.data.memory).toBeUndefined();
    // A stream says it in its last event (its headers left before the turn was recorded).
    const streamed = await fetch(server.url("/api/agent/stream?format=ndjson"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "streamed during the outage" }, sessionId: "s1" }),
    });
    const last = JSON.parse((await streamed.text()).trim().split("\n").at(-1) as string);
    expect(last).toMatchObject({ type: "finish", data: { memory: "unavailable" } });
    const ready = await fetch(server.url("/api/health/ready"));
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.details.dependencies.redis).toMatchObject({ status: "down", required: true });

    await redis.restart();
    await until(async () => (await statusOf(server.url("/api/memory/sessions"))) === 200, "memory to recover");
    const after = await execute("after");
    expect(after.status).toBe(200);
    expect(after.headers.get("x-conduit-memory")).toBeNull();
    expect((await after.json()).metadata.memory).toBeUndefined();
    expect(await statusOf(server.url("/api/memory/sessions/s1"))).toBe(200);
    expect(await statusOf(server.url("/api/health/ready"))).toBe(200);
    await adapterRef?.stop();
    await runtime.close();
  });

  it("Redis conversation memory with memory.onUnavailable: fail: 503 STORE_UNAVAILABLE instead of an answer without history", async () => {
    const runtime = createRuntime({
      env: {},
      redis: redis.url,
      redisKeyPrefix: `mem:${randomUUID()}:`,
      memory: { onUnavailable: "fail" },
      logger: silentLogger,
    });
    const server = await start({
      runtime,
      config: { timeout: 5_000, rateLimit: { enabled: false } },
      setup: (adapter) => adapter.registerRouteGroup(createAgentRoutes(runtime)),
    });
    const execute = (body: Record<string, unknown>) =>
      fetch(server.url("/api/agent/execute"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { text: "hello" }, ...body }),
      });
    expect((await execute({ sessionId: "s1" })).status).toBe(200);
    await redis.kill();
    await until(async () => (await execute({ sessionId: "s1" })).status === 503, "memory to report the outage");
    const refused = await execute({ sessionId: "s1" });
    expect(refused.headers.get("retry-after")).toBe("2");
    expect((await refused.json()).error).toMatchObject({ code: "STORE_UNAVAILABLE", details: { store: "memory" } });
    // A call without a session needs no memory: still answered.
    expect((await execute({})).status).toBe(200);
    await runtime.close();
  });

  it("Redis response cache: bypassed while Redis is down (X-Cache: BYPASS, never an error), caching again after", async () => {
    const client = failFastClient();
    let calls = 0;
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        adapter.registerMiddleware(createCacheMiddleware({ ttlMs: 60_000, store: new RedisCacheStore(client, `cache:${randomUUID()}:`) }));
        adapter.registerRoute({ method: "GET", path: "/counted", handler: () => ++calls });
      },
    });
    const get = () => fetch(server.url("/api/counted"));
    expect((await get()).headers.get("x-cache")).toBe("MISS");
    expect((await get()).headers.get("x-cache")).toBe("HIT");
    await redis.kill();
    await until(() => client.status !== "ready", "the client to notice");
    const bypassed = await get();
    expect(bypassed.status).toBe(200);
    expect(bypassed.headers.get("x-cache")).toBe("BYPASS");
    expect((await bypassed.json()).data).toBe(2);
    await redis.restart();
    await until(async () => (await get()).headers.get("x-cache") === "MISS", "the cache to come back");
    expect((await get()).headers.get("x-cache")).toBe("HIT");
  });
});
