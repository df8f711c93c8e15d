import { z } from "zod";
import { expect, it, vi } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";
import type { BaseServerAdapter } from "@conduit-ai/server-core";

function registerSampleRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "GET", path: "/items/:id", handler: (ctx) => ({ id: ctx.params.id, query: ctx.query }) });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
  adapter.registerRoute({
    method: "POST",
    path: "/typed",
    schema: { body: z.object({ name: z.string().min(1), count: z.number().int() }) },
    successStatus: 201,
    handler: (ctx) => ctx.body,
  });
  adapter.registerRoute({
    method: "GET",
    path: "/crash",
    handler: () => {
      throw new Error("database password is hunter2");
    },
  });
  adapter.registerRoute({ method: "GET", path: "/slow", handler: () => sleep(1_000).then(() => ({ late: true })) });
  adapter.registerRoute({ method: "DELETE", path: "/items/:id", handler: () => undefined });
}

forEachAdapter("envelopes and errors", ({ start }) => {
  it("wraps handler results in {data, metadata} with a request id", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const response = await fetch(server.url("/api/items/42"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body.data).toEqual({ id: "42", query: {} });
    expect(body.metadata.requestId).toMatch(/^req-/);
    expect(response.headers.get("x-request-id")).toBe(body.metadata.requestId);
    expect(typeof body.metadata.duration).toBe("number");
    expect(new Date(body.metadata.timestamp).toString()).not.toBe("Invalid Date");
  });

  it("honors a safe incoming x-request-id and replaces an unsafe one", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const safe = await fetch(server.url("/api/items/1"), { headers: { "x-request-id": "client-123.a:b" } });
    expect((await safe.json()).metadata.requestId).toBe("client-123.a:b");
    const unsafe = await fetch(server.url("/api/items/1"), { headers: { "x-request-id": "bad id with spaces" } });
    expect((await unsafe.json()).metadata.requestId).toMatch(/^req-/);
  });

  it("decodes path params and repeated query values identically", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const response = await rawRequest(server.port, { path: "/api/items/a%20b%2Fc?tag=x&tag=y&q=caf%C3%A9&empty=" });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).data).toEqual({ id: "a b/c", query: { tag: ["x", "y"], q: "café", empty: "" } });
  });

  it("resolves dot segments before routing and middleware filters, identically everywhere", async () => {
    const server = await start({
      setup: (adapter) => {
        registerSampleRoutes(adapter);
        adapter.registerMiddleware({
          name: "mark-items",
          paths: ["/items/*"],
          handler: async (ctx, next) => {
            await next();
            ctx.setHeader("x-items", "yes");
          },
        });
      },
    });
    for (const path of ["/api/echo/../items/9", "/api/echo/%2e%2e/items/9", "/api/./items/9"]) {
      const response = await rawRequest(server.port, { path });
      expect(response.status, path).toBe(200);
      expect(JSON.parse(response.body).data.id, path).toBe("9");
      expect(response.headers["x-items"], path).toBe("yes");
    }
  });

  it("answers malformed percent-encoding in a path with 400 VALIDATION_ERROR", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const response = await rawRequest(server.port, { path: "/api/items/%E0%A4%A" });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe("VALIDATION_ERROR");
  });

  it("parses JSON bodies and answers malformed JSON with 400", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const ok = await fetch(server.url("/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":[1,2]}',
    });
    expect((await ok.json()).data).toEqual({ received: { a: [1, 2] } });
    const bad = await fetch(server.url("/api/echo"), { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":' });
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.category).toBe("VALIDATION");
    expect(body.metadata.requestId).toBe(body.error.requestId);
  });

  it("answers an unsupported media type with 415", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const response = await fetch(server.url("/api/echo"), { method: "POST", headers: { "content-type": "application/xml" }, body: "<a/>" });
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("validates bodies with zod and lists every failing field", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const bad = await fetch(server.url("/api/typed"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"","count":1.5}',
    });
    expect(bad.status).toBe(400);
    const fields = (await bad.json()).error.details.errors.map((error: { field: string }) => error.field).sort();
    expect(fields).toEqual(["body.count", "body.name"]);
    const ok = await fetch(server.url("/api/typed"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"x","count":2}',
    });
    expect(ok.status).toBe(201);
  });

  it("rejects a body over the limit with 413, by header and by streamed size", async () => {
    const server = await start({ setup: registerSampleRoutes, config: { bodyParser: { limit: 1024 } } });
    const declared = await fetch(server.url("/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ x: "a".repeat(2048) }),
    });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    const chunked = await fetch(server.url("/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`{"x":"${"b".repeat(4096)}"}`));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it("answers a handler crash with 500 HANDLER_ERROR and no internal detail", async () => {
    const errors: unknown[] = [];
    const server = await start({
      setup: (adapter) => {
        registerSampleRoutes(adapter);
        adapter.on("error", (event) => errors.push(event));
      },
    });
    const response = await fetch(server.url("/api/crash"));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
    const body = JSON.parse(text);
    expect(body.error).toMatchObject({ code: "HANDLER_ERROR", message: "Internal server error", category: "EXECUTION" });
    expect(errors).toHaveLength(1);
  });

  it("times out slow handlers with 408 TIMEOUT", async () => {
    const server = await start({ setup: registerSampleRoutes, config: { timeout: 100 } });
    const response = await fetch(server.url("/api/slow"));
    expect(response.status).toBe(408);
    expect((await response.json()).error).toMatchObject({ code: "TIMEOUT", category: "EXECUTION" });
  });

  it("times each request out on its own deadline while others are answered", async () => {
    const server = await start({ setup: registerSampleRoutes, config: { timeout: 150 } });
    const timed = async (path: string) => {
      const started = performance.now();
      const response = await fetch(server.url(path));
      await response.arrayBuffer();
      return { status: response.status, elapsed: performance.now() - started };
    };
    const first = timed("/api/slow");
    await sleep(80);
    const [second, fast] = await Promise.all([timed("/api/slow"), timed("/api/items/7")]);
    expect(fast.status).toBe(200);
    expect((await first).status).toBe(408);
    expect(second.status).toBe(408);
    // Not expired together with the first one: its own 150 ms counted from its own start.
    expect(second.elapsed).toBeGreaterThanOrEqual(140);
  });

  it("sends complete answers with Content-Length, never chunked", async () => {
    const server = await start({ setup: registerSampleRoutes });
    for (const path of ["/api/items/42", "/api/nowhere"]) {
      const response = await fetch(server.url(path));
      const bytes = (await response.arrayBuffer()).byteLength;
      expect(response.headers.get("content-length")).toBe(String(bytes));
      expect(response.headers.get("transfer-encoding")).toBeNull();
    }
  });

  it("answers unknown routes with a 404 ROUTE_NOT_FOUND envelope, never HTML", async () => {
    const server = await start({ setup: registerSampleRoutes });
    for (const path of ["/nope", "/api/nope", "/api/items", "/"]) {
      const response = await fetch(server.url(path));
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await response.json()).error.code).toBe("ROUTE_NOT_FOUND");
    }
    const wrongMethod = await fetch(server.url("/api/echo"), { method: "PUT" });
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("serves HEAD like GET without a body, and OPTIONS with the allowed methods", async () => {
    const server = await start({ setup: registerSampleRoutes });
    // The framework must not try to answer a second time (it would log ERR_HTTP_HEADERS_SENT).
    const consoleError = vi.spyOn(console, "error");
    const head = await rawRequest(server.port, { method: "HEAD", path: "/api/items/7" });
    await sleep(20);
    expect(consoleError).not.toHaveBeenCalled();
    consoleError.mockRestore();
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-type"]).toMatch(/^application\/json/);
    const get = await rawRequest(server.port, { path: "/api/items/7" });
    // The length GET would send (give or take the digits of metadata.duration).
    expect(Math.abs(Number(head.headers["content-length"]) - Buffer.byteLength(get.body))).toBeLessThanOrEqual(6);
    const options = await rawRequest(server.port, { method: "OPTIONS", path: "/api/items/7" });
    expect(options.status).toBe(204);
    expect(String(options.headers.allow).split(", ").sort()).toEqual(["DELETE", "GET", "OPTIONS"]);
  });

  it("answers a handler returning nothing with data: null", async () => {
    const server = await start({ setup: registerSampleRoutes });
    const response = await fetch(server.url("/api/items/3"), { method: "DELETE" });
    expect(response.status).toBe(200);
    expect((await response.json()).data).toBeNull();
  });

  it("serves routes registered after start", async () => {
    const server = await start({ setup: registerSampleRoutes });
    server.adapter.registerRoute({ method: "GET", path: "/late/:x", handler: (ctx) => ({ late: ctx.params.x }) });
    const response = await fetch(server.url("/api/late/yes"));
    expect((await response.json()).data).toEqual({ late: "yes" });
  });

  it("serves the built-in /health and /ready outside basePath, unless disabled", async () => {
    const server = await start();
    const health = await fetch(server.url("/health"));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    expect((await fetch(server.url("/ready"))).status).toBe(200);
    const bare = await start({ config: { disableBuiltInHealth: true } });
    expect((await fetch(bare.url("/health"))).status).toBe(404);
  });

  it("runs middleware by order whatever the registration order, with path filters", async () => {
    const server = await start({
      setup: (adapter) => {
        registerSampleRoutes(adapter);
        const trace = (name: string, order: number, extra: object = {}) =>
          adapter.registerMiddleware({
            name,
            order,
            ...extra,
            handler: async (ctx, next) => {
              ctx.state.trace = [...((ctx.state.trace as string[]) ?? []), name];
              await next();
              ctx.appendHeader("x-trace", name);
            },
          });
        trace("late", 50);
        trace("early", 1);
        trace("only-items", 10, { paths: ["/items/*"] });
        trace("not-items", 20, { excludePaths: ["/api/items/*"] });
      },
    });
    const items = await fetch(server.url("/api/items/1"));
    expect(items.headers.get("x-trace")).toBe("late, only-items, early");
    const echo = await fetch(server.url("/api/echo"), { method: "POST", body: "{}" });
    expect(echo.headers.get("x-trace")).toBe("late, not-items, early");
  });
});
