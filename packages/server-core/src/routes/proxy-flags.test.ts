import { describe, expect, it } from "vitest";
import type { RouteGroup } from "../contracts/route.js";
import { createTestApp } from "../testing/test-kit.js";
import { type ProxySurfaces, createAllRoutes } from "./all-routes.js";

/** A stand-in for @conduit-ai/proxy's instance: records what the helper asked for. */
function provider() {
  const asked: ProxySurfaces[] = [];
  return {
    asked,
    createProxyRoutes(surfaces: ProxySurfaces): RouteGroup[] {
      asked.push(surfaces);
      return [
        {
          prefix: "",
          routes: [
            {
              method: "POST",
              path: "/v1/messages",
              absolute: true,
              rawBody: true,
              handler: async (ctx) => ({ bytes: Buffer.from((await ctx.readRawBody()) ?? []).toString("hex"), body: ctx.body ?? null }),
            },
          ],
        },
      ];
    },
  };
}

describe("route timeoutMs", () => {
  it("bounds a route by its own timeout instead of config.timeout, both ways", async () => {
    const slow = (ms: number) => async () => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { ok: true };
    };
    const app = createTestApp({
      config: { enableMetrics: false, logging: { enabled: false }, timeout: 200 },
      routes: [
        { method: "GET", path: "/patient", timeoutMs: 5_000, handler: slow(600) },
        { method: "GET", path: "/hasty", timeoutMs: 50, handler: slow(1_000) },
        { method: "GET", path: "/default", handler: slow(1_000) },
      ],
    });
    expect((await app.request({ url: "/api/patient" })).status).toBe(200);
    const hasty = await app.request({ url: "/api/hasty" });
    expect(hasty.text).toContain("timed out after 50 ms");
    const fallback = await app.request({ url: "/api/default" });
    expect(fallback.text).toContain("timed out after 200 ms");
    expect(hasty.status).toBe(fallback.status);
    expect(() => createTestApp({ routes: [{ method: "GET", path: "/bad", timeoutMs: -1, handler: () => 1 }] })).toThrow(/timeoutMs/);
  });
});

describe("proxy options of createAllRoutes", () => {
  it("asks the provider for the surfaces each flag names", () => {
    const proxy = provider();
    createAllRoutes(undefined, "/api", { proxy });
    createAllRoutes(undefined, "/api", { claudeProxy: proxy });
    createAllRoutes(undefined, "/api", { openaiProxy: true, proxyRoutes: proxy });
    expect(proxy.asked).toEqual([
      { messages: true, chatCompletions: true },
      { messages: true, chatCompletions: false },
      { messages: false, chatCompletions: true },
    ]);
    expect(createAllRoutes(undefined, "/api", {}).some((group) => group.routes.some((route) => route.path === "/v1/messages"))).toBe(false);
  });

  it("a flag without the proxy package is a setup error naming it", () => {
    expect(() => createAllRoutes(undefined, "/api", { proxy: true })).toThrow(/@conduit-ai\/proxy/);
    expect(() => createAllRoutes(undefined, "/api", { claudeProxy: true })).toThrow(/@conduit-ai\/proxy/);
  });

  it("a rawBody route gets the bytes as sent and no parsed body", async () => {
    const app = createTestApp({ config: { enableMetrics: false, logging: { enabled: false } } });
    for (const group of createAllRoutes(undefined, "/api", { proxy: provider() })) app.adapter.registerRouteGroup(group);
    const sent = '{ "a" :1,\n"b":"\\u00e9"}';
    const response = await app.request({
      method: "POST",
      url: "/v1/messages",
      headers: { "content-type": "application/json" },
      body: sent,
    });
    const data = (JSON.parse(response.text) as { data: { bytes: string; body: unknown } }).data;
    expect(Buffer.from(data.bytes, "hex").toString()).toBe(sent);
    expect(data.body).toBeNull();
  });
});
