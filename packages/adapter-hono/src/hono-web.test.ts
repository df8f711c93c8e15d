import { describe, expect, it } from "vitest";
import { conduitApp, createFetchHandler } from "./fetch.js";
import { Hono } from "hono";

/** The web-standard path: web `Request` in, web `Response` out, no Node server anywhere. */
describe("createFetchHandler (Bun, Deno, Workers)", () => {
  const handler = createFetchHandler({
    config: { logging: { enabled: false }, streaming: { keepAliveMs: 10 } },
    setup: (conduit) => {
      conduit.registerRoute({ method: "POST", path: "/echo/:id", handler: (ctx) => ({ id: ctx.params.id, body: ctx.body }) });
      conduit.registerRoute({
        method: "GET",
        path: "/count",
        streaming: true,
        handler: async function* () {
          yield { type: "text-start", id: "t", timestamp: 1, data: {} };
          await new Promise((resolve) => setTimeout(resolve, 30));
          yield { type: "text-delta", id: "t", timestamp: 2, data: { delta: "one" } };
          yield { type: "finish", timestamp: 3, data: { reason: "stop" } };
        },
      });
    },
  });

  it("answers in Conduit's envelopes: success, validation error, 404", async () => {
    const ok = await handler.fetch(
      new Request("http://worker.example/api/echo/7", { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' }),
    );
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.data).toEqual({ id: "7", body: { a: 1 } });
    expect(ok.headers.get("x-request-id")).toBe(body.metadata.requestId);
    const malformed = await handler.fetch(
      new Request("http://worker.example/api/echo/7", { method: "POST", headers: { "content-type": "application/json" }, body: "{" }),
    );
    expect([malformed.status, (await malformed.json()).error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const missing = await handler.fetch(new Request("http://worker.example/nowhere"));
    expect([missing.status, (await missing.json()).error.code]).toEqual([404, "ROUTE_NOT_FOUND"]);
  });

  it("streams as a web ReadableStream, with keep-alives while the source is idle, in SSE and the UI message protocol", async () => {
    const sse = await (await handler.fetch(new Request("http://worker.example/api/count"))).text();
    expect([...sse.matchAll(/^event: (.+)$/gm)].map((match) => match[1])).toEqual(["text-start", "text-delta", "finish"]);
    expect(sse).toContain(": keep-alive");
    const ui = await handler.fetch(new Request("http://worker.example/api/count?format=ui-message"));
    expect(ui.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect((await ui.text()).trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("serves routes registered after creation, and is running until stop()", async () => {
    handler.conduit.registerRoute({ method: "GET", path: "/late", handler: () => ({ late: true }) });
    expect((await (await handler.fetch(new Request("http://worker.example/api/late"))).json()).data).toEqual({ late: true });
    expect(handler.conduit.getLifecycleState()).toBe("running");
  });
});

describe("conduitApp (a Hono sub-app)", () => {
  it("serves Conduit under the host's mount point; other paths stay the host's", async () => {
    const host = new Hono();
    host.route(
      "/ai",
      conduitApp({
        config: { logging: { enabled: false } },
        setup: (conduit) =>
          conduit.registerRoute({ method: "GET", path: "/items/:id", handler: (ctx) => ({ id: ctx.params.id, path: ctx.path }) }),
      }),
    );
    host.get("/host", (c) => c.text("host"));
    const item = await host.request("/ai/items/9");
    expect((await item.json()).data).toEqual({ id: "9", path: "/items/9" });
    expect(await (await host.request("/host")).text()).toBe("host");
    const other = await host.request("/ai/other");
    expect(other.status).toBe(404);
    expect(other.headers.get("x-request-id")).toBeNull();
    const wrongMethod = await host.request("/ai/items/9", { method: "DELETE" });
    expect((await wrongMethod.json()).error.code).toBe("ROUTE_NOT_FOUND");
  });
});
