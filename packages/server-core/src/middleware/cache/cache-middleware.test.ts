import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import type { RouteDefinition } from "../../contracts/route.js";
import { createTestApp } from "../../testing/test-kit.js";
import { createCacheMiddleware } from "./cache-middleware.js";
import { MemoryCacheStore } from "./memory-cache-store.js";
import { RedisCacheStore } from "./redis-cache-store.js";

function counterRoutes() {
  let calls = 0;
  const routes: RouteDefinition[] = [
    { method: "GET" as const, path: "/count", handler: () => ({ n: ++calls }) },
    { method: "GET" as const, path: "/private/me", handler: (ctx) => ({ n: ++calls, user: ctx.user?.id ?? null }) },
    {
      method: "GET" as const,
      path: "/fails",
      handler: () => {
        calls++;
        throw new Error("no");
      },
    },
    {
      method: "GET" as const,
      path: "/stream",
      handler: async function* () {
        calls++;
        yield { type: "data", data: 1 };
      },
    },
    { method: "POST" as const, path: "/count", handler: () => ({ n: ++calls }) },
  ];
  return { calls: () => calls, routes };
}

const fakeAuth: MiddlewareDefinition = {
  name: "fake-auth",
  order: 10,
  handler: async (ctx, next) => {
    const user = ctx.header("x-user");
    if (user) ctx.user = { id: user, roles: [], permissions: [] };
    await next();
  },
};

describe("cache middleware", () => {
  it("MISS then HIT with age, Cache-Control, the new request id; query is part of the key", async () => {
    const { calls, routes } = counterRoutes();
    const { request } = createTestApp({ middleware: [createCacheMiddleware({ ttlMs: 60_000 })], routes });
    const miss = await request({ url: "/api/count?a=1&b=2" });
    expect(miss.headers).toMatchObject({ "x-cache": "MISS", "cache-control": "public, max-age=60" });
    const hit = await request({ url: "/api/count?b=2&a=1" });
    expect(hit.headers["x-cache"]).toBe("HIT");
    expect(hit.headers["x-cache-age"]).toBe("0");
    expect(hit.headers["content-type"]).toContain("application/json");
    const body = hit.json<{ data: { n: number }; metadata: { requestId: string } }>();
    expect(body.data.n).toBe(1);
    expect(body.metadata.requestId).toBe(hit.headers["x-request-id"]);
    expect(body.metadata.requestId).not.toBe(miss.headers["x-request-id"]);
    expect((await request({ url: "/api/count?a=2" })).json<{ data: { n: number } }>().data.n).toBe(2);
    expect(calls()).toBe(2);
  });

  it("includeQuery: false shares one entry across query strings", async () => {
    const { calls, routes } = counterRoutes();
    const { request } = createTestApp({ middleware: [createCacheMiddleware({ ttlMs: 60_000, includeQuery: false })], routes });
    expect((await request({ url: "/api/count?page=1" })).headers["x-cache"]).toBe("MISS");
    const other = await request({ url: "/api/count?page=2" });
    expect(other.headers["x-cache"]).toBe("HIT");
    expect(other.json<{ data: { n: number } }>().data.n).toBe(1);
    expect((await request({ url: "/api/count" })).headers["x-cache"]).toBe("HIT");
    expect(calls()).toBe(1);
  });

  it("keyGenerator decides which requests share an entry, and a user's scope is still appended to its key", async () => {
    const { calls, routes } = counterRoutes();
    const keys: string[] = [];
    const store = new MemoryCacheStore(100);
    const cache = createCacheMiddleware({
      ttlMs: 60_000,
      store,
      authenticated: "per-user",
      // One entry per tenant header, whatever the path's query.
      keyGenerator: (ctx) => {
        const key = `tenant:${ctx.header("x-tenant") ?? "none"}:${ctx.path}`;
        keys.push(key);
        return key;
      },
    });
    const { request } = createTestApp({ middleware: [fakeAuth, cache], routes });
    const first = await request({ url: "/api/count?a=1", headers: { "x-tenant": "acme" } });
    expect(first.headers["x-cache"]).toBe("MISS");
    const sameTenant = await request({ url: "/api/count?a=2", headers: { "x-tenant": "acme" } });
    expect(sameTenant.headers["x-cache"]).toBe("HIT");
    const otherTenant = await request({ url: "/api/count?a=1", headers: { "x-tenant": "globex" } });
    expect(otherTenant.headers["x-cache"]).toBe("MISS");
    expect(otherTenant.json<{ data: { n: number } }>().data.n).toBe(2);
    expect(keys).toEqual(["tenant:acme:/api/count", "tenant:acme:/api/count", "tenant:globex:/api/count"]);
    expect(await store.get("tenant:acme:/api/count")).toBeDefined();
    // A signed-in user never shares the generated key's entry: their scope is appended.
    const ana = await request({ url: "/api/private/me", headers: { "x-tenant": "acme", "x-user": "ana" } });
    const bob = await request({ url: "/api/private/me", headers: { "x-tenant": "acme", "x-user": "bob" } });
    expect(ana.json<{ data: { user: string } }>().data.user).toBe("ana");
    expect(bob.json<{ data: { user: string } }>().data.user).toBe("bob");
    expect(await store.get("tenant:acme:/api/private/me|user:ana")).toBeDefined();
    expect(calls()).toBe(4);
  });

  it("never caches errors, streams or other methods, and expires by ttl / ttlByPath", async () => {
    const { calls, routes } = counterRoutes();
    const { request } = createTestApp({
      middleware: [createCacheMiddleware({ ttlMs: 60_000, ttlByPath: { "/count": 50 }, basePath: "/api" })],
      routes,
    });
    await request({ url: "/api/fails" });
    expect((await request({ url: "/api/fails" })).status).toBe(500);
    await request({ url: "/api/stream" });
    expect((await request({ url: "/api/stream" })).headers["x-cache"]).toBeUndefined();
    await request({ method: "POST", url: "/api/count" });
    await request({ method: "POST", url: "/api/count" });
    expect(calls()).toBe(6);
    await request({ url: "/api/count" });
    expect((await request({ url: "/api/count" })).headers["x-cache"]).toBe("HIT");
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await request({ url: "/api/count" })).headers["x-cache"]).toBe("MISS");
  });

  it("never serves one user's response to another; credentials without a user bypass the cache", async () => {
    const { routes } = counterRoutes();
    const { request } = createTestApp({ middleware: [fakeAuth, createCacheMiddleware({ ttlMs: 60_000 })], routes });
    const alice = await request({ url: "/api/private/me", headers: { "x-user": "alice" } });
    expect(alice.headers["cache-control"]).toBe("private, max-age=60");
    const bob = await request({ url: "/api/private/me", headers: { "x-user": "bob" } });
    expect(bob.json<{ data: { user: string } }>().data.user).toBe("bob");
    expect(bob.headers["x-cache"]).toBe("MISS");
    const aliceAgain = await request({ url: "/api/private/me", headers: { "x-user": "alice" } });
    expect(aliceAgain.headers["x-cache"]).toBe("HIT");
    expect(aliceAgain.json<{ data: { user: string } }>().data.user).toBe("alice");
    const anonymous = await request({ url: "/api/private/me" });
    expect(anonymous.json<{ data: { user: string | null } }>().data.user).toBeNull();
    const withToken = await request({ url: "/api/private/me", headers: { authorization: "Bearer x" } });
    expect(withToken.headers["x-cache"]).toBeUndefined();
  });

  it("respects paths/excludePaths and the LRU bound", async () => {
    const { routes } = counterRoutes();
    const { request } = createTestApp({
      middleware: [createCacheMiddleware({ ttlMs: 60_000, paths: ["/count"], excludePaths: ["/private"], basePath: "/api" })],
      routes,
    });
    await request({ url: "/api/private/me" });
    expect((await request({ url: "/api/private/me" })).headers["x-cache"]).toBeUndefined();
    const store = new MemoryCacheStore(2);
    for (const key of ["a", "b", "c"]) await store.set(key, { data: key, status: 200, createdAt: Date.now(), ttlMs: 1000 });
    expect(await store.get("a")).toBeUndefined();
    expect(store.size).toBe(2);
  });
});

describe("RedisCacheStore (real Redis)", () => {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `test:${randomUUID()}:cache:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("shares entries between two pipelines", async () => {
    const first = counterRoutes();
    const second = counterRoutes();
    const appA = createTestApp({
      middleware: [createCacheMiddleware({ ttlMs: 60_000, store: new RedisCacheStore(redis, prefix) })],
      routes: first.routes,
    });
    const appB = createTestApp({
      middleware: [createCacheMiddleware({ ttlMs: 60_000, store: new RedisCacheStore(redis, prefix) })],
      routes: second.routes,
    });
    expect((await appA.request({ url: "/api/count" })).headers["x-cache"]).toBe("MISS");
    const hit = await appB.request({ url: "/api/count" });
    expect(hit.headers["x-cache"]).toBe("HIT");
    expect(second.calls()).toBe(0);
    expect(await redis.pttl(`${prefix}GET:/api/count`)).toBeGreaterThan(59_000);
  });
});
