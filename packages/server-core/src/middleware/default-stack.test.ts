import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/resolve-config.js";
import { createDefaultMiddleware } from "./default-stack.js";
import { createTestApp } from "../testing/test-kit.js";

const routes = [{ method: "GET" as const, path: "/ok", handler: () => ({ text: "y".repeat(2000) }) }];

describe("default middleware stack", () => {
  it("lists the stack in docs/spec.md's order and honors the enable flags", () => {
    const names = (config: Parameters<typeof resolveConfig>[0]) =>
      createDefaultMiddleware(resolveConfig(config)).map((item) => `${item.name}:${item.order}`);
    expect(names({})).toEqual([
      "request-id:0",
      "timing:0",
      "error-handling:1",
      "security-headers:2",
      "logging:3",
      "compression:5",
      "cors:2",
      "rate-limit:4",
    ]);
    expect(names({ logging: { enabled: false }, cors: { enabled: false }, rateLimit: { enabled: false } })).toEqual([
      "request-id:0",
      "timing:0",
      "error-handling:1",
      "security-headers:2",
      "compression:5",
    ]);
  });

  it("every adapter gets it: headers, compression, CORS and the configured rate limit; health is never limited", async () => {
    const { adapter, request } = createTestApp({ defaultMiddleware: true, config: { rateLimit: { maxRequests: 2 } }, routes });
    const installed = adapter.handler.middleware.list().map((item) => item.name);
    expect(installed).toEqual(
      expect.arrayContaining(["request-id", "timing", "error-handling", "security-headers", "compression", "cors", "rate-limit"]),
    );
    expect(installed).not.toContain("logging"); // the test kit turns logging off
    const response = await request({ url: "/api/ok", headers: { origin: "https://x.example", "accept-encoding": "gzip" } });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      "x-frame-options": "DENY",
      "content-encoding": "gzip",
      "access-control-allow-origin": "*",
      "x-ratelimit-limit": "2",
      "x-ratelimit-remaining": "1",
    });
    expect(response.headers["x-request-id"]).toMatch(/^req-/);
    expect(response.headers["x-response-time"]).toMatch(/ms$/);
    await request({ url: "/api/ok" });
    const limited = await request({ url: "/api/ok" });
    expect(limited.status).toBe(429);
    expect(limited.headers["x-frame-options"]).toBe("DENY");
    for (const url of ["/health", "/ready", "/api/health"]) expect((await request({ url })).status).not.toBe(429);
  });

  it("with logging on, the core's logger is the pino logger; the stack can be left out", () => {
    const logged = createTestApp({ defaultMiddleware: true, config: { logging: { enabled: true, level: "silent" } } });
    expect(typeof (logged.adapter.handler.logger as { child?: unknown }).child).toBe("function");
    const bare = createTestApp({ defaultMiddleware: false });
    expect(bare.adapter.handler.middleware.list().map((item) => item.name)).not.toContain("request-id");
  });
});
