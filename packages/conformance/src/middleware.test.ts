import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { gunzipSync } from "node:zlib";
import type { BaseServerAdapter } from "@conduit-ai/server-core";
import {
  createAbortSignalMiddleware,
  createCacheMiddleware,
  createLoggingMiddleware,
  createValidationMiddleware,
  validationSchemas,
} from "@conduit-ai/server-core/middleware";
import { expect, it } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";

const LARGE_TEXT = "conduit ".repeat(400);

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "GET", path: "/large", handler: () => ({ text: LARGE_TEXT }) });
  adapter.registerRoute({ method: "POST", path: "/only-post", handler: () => "posted" });
  adapter.registerRoute({ method: "GET", path: "/old", deprecated: true, handler: () => "old" });
  adapter.registerRoute({
    method: "GET",
    path: "/crash",
    handler: () => {
      throw new Error("secret internals");
    },
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

forEachAdapter("default middleware stack", ({ start }) => {
  it("request id, timing and security headers on success and on errors", async () => {
    const server = await start({ setup: registerRoutes });
    const ok = await rawRequest(server.port, { path: "/api/large", headers: { "x-request-id": "client-id_1.2:3" } });
    expect(ok.headers["x-request-id"]).toBe("client-id_1.2:3");
    expect(JSON.parse(ok.body).metadata.requestId).toBe("client-id_1.2:3");
    const unsafe = await rawRequest(server.port, { path: "/api/crash", headers: { "x-request-id": "bad id with spaces" } });
    expect(unsafe.status).toBe(500);
    expect(unsafe.headers["x-request-id"]).toMatch(/^req-/);
    const envelope = JSON.parse(unsafe.body);
    expect(envelope.error).toMatchObject({ code: "HANDLER_ERROR", requestId: unsafe.headers["x-request-id"] });
    expect(unsafe.body).not.toContain("secret internals");
    for (const response of [ok, unsafe]) {
      expect(response.headers["x-response-time"]).toMatch(/^\d+\.\d{2}ms$/);
      expect(response.headers["server-timing"]).toMatch(/^total;dur=/);
      expect(response.headers).toMatchObject({
        "x-frame-options": "DENY",
        "x-content-type-options": "nosniff",
        "referrer-policy": "strict-origin-when-cross-origin",
      });
      // Plain HTTP: no HSTS (RFC 6797 §7.2).
      expect(response.headers["strict-transport-security"]).toBeUndefined();
    }
    // trustProxy is off: X-Forwarded-Proto is what the client wrote, not a proxy's word (admin-surfaces.test.ts has the trusted case).
    const forged = await rawRequest(server.port, { path: "/api/large", headers: { "x-forwarded-proto": "https" } });
    expect(forged.headers["strict-transport-security"]).toBeUndefined();
  });

  it("gzip-compresses large JSON by Accept-Encoding, never a stream, and SSE stays unbuffered", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await start({
      setup: (adapter) => {
        registerRoutes(adapter);
        adapter.registerRoute({
          method: "GET",
          path: "/events",
          handler: async function* () {
            yield { type: "text-delta", data: LARGE_TEXT };
            await released;
            yield { type: "finish", data: null };
          },
        });
      },
    });
    const compressed = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      httpRequest(
        { host: "127.0.0.1", port: server.port, path: "/api/large", headers: { "accept-encoding": "gzip" }, agent: false },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
        },
      )
        .on("error", reject)
        .end();
    });
    expect(compressed.headers["content-encoding"]).toBe("gzip");
    expect(String(compressed.headers.vary)).toContain("Accept-Encoding");
    expect(JSON.parse(gunzipSync(compressed.body).toString()).data.text).toBe(LARGE_TEXT);
    const identity = await rawRequest(server.port, { path: "/api/large" });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(String(identity.headers.vary)).toContain("Accept-Encoding");
    // Under the threshold the body is the same for every client: no Vary.
    const small = await rawRequest(server.port, { path: "/api/old", headers: { "accept-encoding": "gzip" } });
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();

    // The first event must arrive while the handler is still blocked: nothing buffers the stream.
    const firstEvent = await new Promise<{ encoding: unknown; text: string }>((resolve, reject) => {
      httpRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/api/events",
          headers: { "accept-encoding": "gzip, br", accept: "text/event-stream" },
          agent: false,
        },
        (response) => {
          response.once("data", (chunk: Buffer) => {
            resolve({ encoding: response.headers["content-encoding"], text: chunk.toString() });
            release();
            response.resume();
          });
        },
      )
        .on("error", reject)
        .end();
    });
    expect(firstEvent.encoding).toBeUndefined();
    expect(firstEvent.text).toContain("text-delta");
  });

  it("answers a CORS preflight 204 before routing, even for POST-only paths", async () => {
    const server = await start({ setup: registerRoutes });
    const preflight = await rawRequest(server.port, {
      method: "OPTIONS",
      path: "/api/only-post",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
    expect(preflight.headers["access-control-allow-methods"]).toContain("POST");
    // No allowedHeaders configured: the requested headers are reflected, with Vary for caches.
    expect(preflight.headers["access-control-allow-headers"]).toBe("content-type");
    expect(String(preflight.headers.vary)).toContain("Access-Control-Request-Headers");
    const simple = await rawRequest(server.port, { method: "POST", path: "/api/only-post", headers: { origin: "https://app.example" } });
    expect(simple.headers["access-control-allow-origin"]).toBe("*");
    expect(String(simple.headers["access-control-expose-headers"])).toContain("X-Request-Id");
  });

  it("gives a disallowed origin no CORS headers and no error", async () => {
    const server = await start({ config: { cors: { origins: ["https://good.example"], credentials: true } }, setup: registerRoutes });
    const good = await rawRequest(server.port, { method: "POST", path: "/api/only-post", headers: { origin: "https://good.example" } });
    expect(good.headers["access-control-allow-origin"]).toBe("https://good.example");
    expect(good.headers["access-control-allow-credentials"]).toBe("true");
    const bad = await rawRequest(server.port, { method: "POST", path: "/api/only-post", headers: { origin: "https://evil.example" } });
    expect(bad.status).toBe(200);
    expect(Object.keys(bad.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });

  it("rate limits from config.rateLimit with X-RateLimit-* and Retry-After; health is never limited", async () => {
    const server = await start({ config: { rateLimit: { enabled: true, maxRequests: 3, windowMs: 60_000 } }, setup: registerRoutes });
    const responses = [];
    for (let index = 0; index < 4; index++) responses.push(await rawRequest(server.port, { path: "/api/large" }));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map((response) => response.headers["x-ratelimit-remaining"])).toEqual(["2", "1", "0", "0"]);
    const refused = responses[3];
    expect(refused?.headers["x-ratelimit-limit"]).toBe("3");
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(0);
    expect(JSON.parse(refused?.body ?? "{}").error).toMatchObject({ code: "RATE_LIMIT_EXCEEDED", category: "RATE_LIMIT" });
    expect(refused?.headers["x-frame-options"]).toBe("DENY");
    for (const path of ["/health", "/ready"]) expect((await rawRequest(server.port, { path })).status).not.toBe(429);
  });

  it("exempts the probes by default as a deliberate difference from docs/spec.md's 'all routes'; skipPaths: [] limits them too", async () => {
    const config = (skipPaths?: string[]) => ({
      rateLimit: { enabled: true, maxRequests: 1, windowMs: 60_000, ...(skipPaths ? { skipPaths } : {}) },
    });
    const exempt = await start({ config: config(), setup: registerRoutes });
    await rawRequest(exempt.port, { path: "/api/large" });
    expect((await rawRequest(exempt.port, { path: "/api/large" })).status).toBe(429);
    for (const path of ["/health", "/ready", "/health", "/ready"]) {
      const probe = await rawRequest(exempt.port, { path });
      expect(probe.status).toBe(200);
      // Not counted at all: a probe never spends the client's budget.
      expect(probe.headers["x-ratelimit-limit"]).toBeUndefined();
    }
    const limited = await start({ config: config([]), setup: registerRoutes });
    expect((await rawRequest(limited.port, { path: "/health" })).status).toBe(200);
    expect((await rawRequest(limited.port, { path: "/health" })).status).toBe(429);
  });
});

forEachAdapter("opt-in middleware", ({ start }) => {
  it("the handler observes the abort when the client disconnects", async () => {
    const reasons: string[] = [];
    let handlerSawAbort = false;
    const server = await start({
      // Known bug outside this suite (reported): on hono the abandoned request stays in flight, so stop() waits the drain timeout.
      config: { shutdown: { drainTimeoutMs: 1_000 } },
      setup: (adapter) => {
        adapter.registerMiddleware(createAbortSignalMiddleware({ onAbort: (reason) => reasons.push((reason as { code: string }).code) }));
        adapter.registerRoute({
          method: "GET",
          path: "/hang",
          handler: (ctx) =>
            new Promise((resolve) => {
              ctx.abortSignal.addEventListener("abort", () => {
                handlerSawAbort = true;
                resolve("gone");
              });
            }),
        });
      },
    });
    const clientRequest = httpRequest({ host: "127.0.0.1", port: server.port, path: "/api/hang", agent: false });
    clientRequest.on("error", () => undefined);
    clientRequest.end();
    await sleep(100);
    clientRequest.destroy();
    await waitFor(() => handlerSawAbort);
    expect(reasons).toEqual(["STREAM_ABORTED"]);
  });

  it("validation answers 400 VALIDATION_ERROR listing every failing field", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "POST",
          path: "/things/:id",
          middleware: [
            createValidationMiddleware({
              params: validationSchemas.idParam,
              query: validationSchemas.pagination,
              body: { required: ["name"], properties: { name: { type: "string", minLength: 3 }, email: validationSchemas.email } },
            }),
          ],
          handler: (ctx) => ({ query: ctx.query, body: ctx.body }),
        }),
    });
    const bad = await rawRequest(server.port, {
      method: "POST",
      path: "/api/things/x?limit=1000",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "not-an-email" }),
    });
    expect(bad.status).toBe(400);
    const error = JSON.parse(bad.body).error;
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.details.errors.map((issue: { field: string }) => issue.field).sort()).toEqual(["body.email", "body.name", "query.limit"]);
    const good = await rawRequest(server.port, {
      method: "POST",
      path: "/api/things/x?page=2",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "widget" }),
    });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body).data).toEqual({ query: { page: 2, limit: 20 }, body: { name: "widget" } });
  });

  it("cache: MISS then HIT; deprecation headers on a deprecated route", async () => {
    let calls = 0;
    const server = await start({
      setup: (adapter) => {
        registerRoutes(adapter);
        adapter.registerMiddleware(createCacheMiddleware({ ttlMs: 60_000, paths: ["/counted"], basePath: "/api" }));
        adapter.registerRoute({ method: "GET", path: "/counted", handler: () => ({ calls: ++calls }) });
      },
    });
    const miss = await rawRequest(server.port, { path: "/api/counted" });
    const hit = await rawRequest(server.port, { path: "/api/counted" });
    expect([miss.headers["x-cache"], hit.headers["x-cache"]]).toEqual(["MISS", "HIT"]);
    expect(JSON.parse(hit.body).data.calls).toBe(1);
    expect(JSON.parse(hit.body).metadata.requestId).toBe(hit.headers["x-request-id"]);
    expect(hit.headers["x-cache-age"]).toBeDefined();
    const { createDeprecationMiddleware } = await import("@conduit-ai/server-core/middleware");
    server.adapter.registerMiddleware(
      createDeprecationMiddleware({ sunset: "2027-06-30T00:00:00Z", link: "https://docs.example/migrate" }),
    );
    const old = await rawRequest(server.port, { path: "/api/old" });
    expect(old.headers).toMatchObject({
      deprecation: "true",
      sunset: "Wed, 30 Jun 2027 00:00:00 GMT",
      link: '<https://docs.example/migrate>; rel="deprecation"',
    });
    expect(old.headers["x-deprecation-notice"]).toContain("deprecated");
  });

  it("request logs are JSON with the request id and never contain credentials", async () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
    const server = await start({
      setup: (adapter) => {
        registerRoutes(adapter);
        adapter.registerMiddleware(createLoggingMiddleware({ destination, basePath: "/api" }));
      },
    });
    const response = await rawRequest(server.port, {
      path: "/api/large?api_key=qk-secret-1&token=tk-secret-2",
      headers: { authorization: "Bearer bt-secret-3", cookie: "sid=ck-secret-4", "x-api-key": "ak-secret-5" },
    });
    await waitFor(() => chunks.length > 0);
    const text = chunks.join("");
    expect(text).not.toMatch(/secret-\d/);
    const line = JSON.parse(text.trim().split("\n")[0] as string);
    expect(line).toMatchObject({ requestId: response.headers["x-request-id"], status: 200, msg: "request completed" });
  });
});
