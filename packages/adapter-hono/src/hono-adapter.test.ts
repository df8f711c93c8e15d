import { describe, expect, it } from "vitest";
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
});
