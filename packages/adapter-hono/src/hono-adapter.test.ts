import { describe, expect, it } from "vitest";
import { rawResponse } from "@conduit-ai/server-core";
import { createAdapter } from "./hono-adapter.js";

describe("Hono adapter off Node (web-standard bridge)", () => {
  it("serves Conduit routes through app.request() with the same envelope and errors", async () => {
    const adapter = createAdapter(undefined, { logging: { enabled: false } });
    adapter.registerRoute({ method: "POST", path: "/echo/:id", handler: (ctx) => ({ id: ctx.params.id, body: ctx.body }) });
    await adapter.initialize();
    const app = adapter.getFrameworkInstance();

    const ok = await app.request("/api/echo/7", { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.data).toEqual({ id: "7", body: { a: 1 } });
    expect(ok.headers.get("x-request-id")).toBe(body.metadata.requestId);

    const malformed = await app.request("/api/echo/7", { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe("VALIDATION_ERROR");

    const missing = await app.request("/api/nowhere");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("ROUTE_NOT_FOUND");
  });

  it("keeps hostile results and bodies in the envelope off Node too (never plain text)", async () => {
    const adapter = createAdapter(undefined, { logging: { enabled: false } });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    adapter.registerRoute({ method: "GET", path: "/circular", handler: () => circular });
    adapter.registerRoute({ method: "GET", path: "/bad-header", handler: () => rawResponse("x", { headers: { "x-bad": "a\nb" } }) });
    adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ctx.body });
    await adapter.initialize();
    const app = adapter.getFrameworkInstance();
    for (const [path, init, status] of [
      ["/api/circular", {}, 500],
      ["/api/bad-header", {}, 500],
      [
        "/api/echo",
        { method: "POST", headers: { "content-type": "application/json" }, body: `${"[".repeat(10_000)}${"]".repeat(10_000)}` },
        400,
      ],
    ] as const) {
      const response = await app.request(path, init);
      expect(response.status, path).toBe(status);
      expect(response.headers.get("content-type"), path).toBe("application/json; charset=utf-8");
      expect((await response.json()).error.requestId, path).toMatch(/^req-/);
    }
  });
});
