import { describe, expect, it } from "vitest";
import type { ServerContext } from "../../contracts/context.js";
import { createTestApp } from "../../testing/test-kit.js";
import { createTokenBucketRateLimitMiddleware } from "./token-bucket-rate-limit.js";
import { type RateLimitInfo, createRateLimitMiddleware, createSlidingWindowRateLimitMiddleware } from "./window-rate-limit.js";

const routes = [{ method: "GET" as const, path: "/items", handler: () => ["a"] }];

describe("window rate limit middleware", () => {
  it("sets X-RateLimit-* on every response and answers 429 RATE_LIMIT_EXCEEDED with Retry-After", async () => {
    const exceeded: RateLimitInfo[] = [];
    const { request } = createTestApp({
      middleware: [
        createRateLimitMiddleware({
          maxRequests: 2,
          windowMs: 60_000,
          message: "Slow down",
          onRateLimitExceeded: (_ctx, info) => void exceeded.push(info),
        }),
      ],
      routes,
    });
    const first = await request({ url: "/api/items" });
    expect(first.status).toBe(200);
    expect(first.headers["x-ratelimit-limit"]).toBe("2");
    expect(first.headers["x-ratelimit-remaining"]).toBe("1");
    const reset = Number(first.headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect((await request({ url: "/api/items" })).headers["x-ratelimit-remaining"]).toBe("0");
    const refused = await request({ url: "/api/items" });
    expect(refused.status).toBe(429);
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    const body = refused.json<{ error: { code: string; message: string; retryAfter: number; category: string } }>();
    expect(body.error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", message: "Slow down", category: "RATE_LIMIT" });
    expect(body.error.retryAfter).toBe(Number(refused.headers["retry-after"]));
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]).toMatchObject({ key: "127.0.0.1", limit: 2, remaining: 0 });
    // Another client address has its own budget.
    expect((await request({ url: "/api/items", clientAddress: "10.0.0.2" })).status).toBe(200);
  });

  it("leaves routes with rateLimit: false to their own limits (the proxy limits per credential)", async () => {
    const { request } = createTestApp({
      middleware: [createRateLimitMiddleware({ maxRequests: 1, windowMs: 60_000 })],
      routes: [...routes, { method: "GET" as const, path: "/own", rateLimit: false as const, handler: () => "own" }],
    });
    for (let index = 0; index < 3; index++) {
      const own = await request({ url: "/api/own" });
      expect(own.status).toBe(200);
      expect(own.headers["x-ratelimit-limit"]).toBeUndefined();
    }
    expect((await request({ url: "/api/items" })).status).toBe(200);
    expect((await request({ url: "/api/items" })).status).toBe(429);
  });

  it("skips skipPaths, uses X-Forwarded-For only with trustProxy (rightmost untrusted), and a custom keyGenerator", async () => {
    const untrusted = createTestApp({
      middleware: [createRateLimitMiddleware({ maxRequests: 1, windowMs: 60_000, skipPaths: ["/health"], basePath: "/api" })],
      routes,
    });
    expect((await untrusted.request({ url: "/api/items", headers: { "x-forwarded-for": "1.1.1.1" } })).status).toBe(200);
    expect((await untrusted.request({ url: "/api/items", headers: { "x-forwarded-for": "2.2.2.2" } })).status).toBe(429);
    for (let index = 0; index < 3; index++) {
      const health = await untrusted.request({ url: "/health" });
      expect(health.status).toBe(200);
      expect(health.headers["x-ratelimit-limit"]).toBeUndefined();
    }

    // One trusted hop: the proxy's own entry (the rightmost) is the client; what the client wrote to its left is ignored.
    const trusted = createTestApp({ middleware: [createRateLimitMiddleware({ maxRequests: 1, windowMs: 60_000, trustProxy: 1 })], routes });
    expect((await trusted.request({ url: "/api/items", headers: { "x-forwarded-for": "1.1.1.1, 10.0.0.1" } })).status).toBe(200);
    expect((await trusted.request({ url: "/api/items", headers: { "x-forwarded-for": "2.2.2.2" } })).status).toBe(200);
    expect((await trusted.request({ url: "/api/items", headers: { "x-forwarded-for": "9.9.9.9, 10.0.0.1" } })).status).toBe(429);

    const byTenant = createTestApp({
      middleware: [
        createRateLimitMiddleware({
          maxRequests: 1,
          windowMs: 60_000,
          keyGenerator: (ctx: ServerContext) => ctx.header("x-tenant") ?? "none",
        }),
      ],
      routes,
    });
    expect((await byTenant.request({ url: "/api/items", headers: { "x-tenant": "a" } })).status).toBe(200);
    expect((await byTenant.request({ url: "/api/items", headers: { "x-tenant": "b" } })).status).toBe(200);
    expect((await byTenant.request({ url: "/api/items", headers: { "x-tenant": "a" } })).status).toBe(429);
  });

  it("the sliding variant limits the same way", async () => {
    const { request } = createTestApp({
      middleware: [createSlidingWindowRateLimitMiddleware({ maxRequests: 2, windowMs: 60_000, subWindows: 6 })],
      routes,
    });
    const statuses = [];
    for (let index = 0; index < 3; index++) statuses.push((await request({ url: "/api/items" })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe("token bucket rate limit middleware", () => {
  const withUser = (user: { id: string; roles: string[] }) => ({
    name: "fake-auth",
    order: 10,
    handler: async (ctx: ServerContext, next: () => Promise<void>) => {
      ctx.user = { ...user, permissions: [] };
      await next();
    },
  });

  async function admitted(
    options: Parameters<typeof createTokenBucketRateLimitMiddleware>[0],
    user?: { id: string; roles: string[] },
    attempts = 12,
  ) {
    const middleware = [createTokenBucketRateLimitMiddleware(options), ...(user ? [withUser(user)] : [])];
    const { request } = createTestApp({ middleware, routes });
    let count = 0;
    let lastLimit: unknown;
    for (let index = 0; index < attempts; index++) {
      const response = await request({ url: "/api/items" });
      if (response.status === 200) count++;
      lastLimit = response.headers["x-ratelimit-limit"];
    }
    return { count, lastLimit };
  }

  it("gives each user maxRequests, the highest role limit, or the user's own limit; skipRoles are exempt", async () => {
    const options = { maxRequests: 3, windowMs: 600_000, roleLimits: { pro: 6, team: 8 }, userLimits: { vip: 10 }, skipRoles: ["admin"] };
    expect(await admitted(options)).toEqual({ count: 3, lastLimit: "3" }); // anonymous: by address
    expect(await admitted(options, { id: "u1", roles: [] })).toEqual({ count: 3, lastLimit: "3" });
    expect(await admitted(options, { id: "u2", roles: ["pro", "team"] })).toEqual({ count: 8, lastLimit: "8" });
    expect(await admitted(options, { id: "vip", roles: ["pro"] })).toEqual({ count: 10, lastLimit: "10" });
    expect((await admitted(options, { id: "root", roles: ["admin"] })).count).toBe(12);
  });

  it("refills continuously", async () => {
    const { request } = createTestApp({ middleware: [createTokenBucketRateLimitMiddleware({ maxRequests: 2, windowMs: 200 })], routes });
    expect((await request({ url: "/api/items" })).status).toBe(200);
    expect((await request({ url: "/api/items" })).status).toBe(200);
    const refused = await request({ url: "/api/items" });
    expect(refused.status).toBe(429);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe("RATE_LIMIT_EXCEEDED");
    await new Promise((resolve) => setTimeout(resolve, 120)); // one token per 100 ms
    expect((await request({ url: "/api/items" })).status).toBe(200);
  });
});
