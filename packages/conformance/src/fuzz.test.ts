import type { BaseServerAdapter } from "@conduit-ai/server-core";
import { attachWebSocket } from "@conduit-ai/websocket";
import fc from "fast-check";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { z } from "zod";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { type RunningServer, forEachAdapter, sleep } from "./harness.js";
import { rawExchange } from "./raw-socket.js";

/**
 * Property-based fuzzing (fast-check) of every input surface against every adapter: JSON
 * bodies, headers, paths, query strings and WebSocket frames. Whatever arrives, the answer is
 * the envelope with a documented status, the process survives, nothing hangs and nothing is
 * left in flight. The default run takes a few seconds per adapter; longer:
 *
 *   FUZZ_RUNS=2000 pnpm --filter @conduit-ai/conformance exec vitest run src/fuzz.test.ts
 *
 * A failure prints fast-check's seed and path; `FUZZ_SEED=<seed>` replays it.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const settings = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };
/** Per property: scales with the runs (a hang is a timeout, never a stuck suite). */
const TIMEOUT = 20_000 + RUNS * 100;
/** What the API documents; a 5xx for client input is a bug, so it is not listed. */
const DOCUMENTED = new Set([200, 201, 204, 400, 401, 404, 405, 408, 413, 415, 429, 431]);

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
  adapter.registerRoute({
    method: "POST",
    path: "/typed",
    schema: { body: z.object({ name: z.string().max(50), tags: z.array(z.string()).max(5).optional() }) },
    successStatus: 201,
    handler: (ctx) => ctx.body,
  });
  adapter.registerRoute({ method: "GET", path: "/query", handler: (ctx) => ({ query: ctx.query }) });
  adapter.registerRoute({ method: "GET", path: "/items/:id", handler: (ctx) => ({ id: ctx.params.id }) });
  attachWebSocket(adapter, { runtime: createContractRuntime(), maxMessageSize: 64 * 1024 });
}

/** Checks one answer: a documented status and, when there is a body, the envelope. */
function checkAnswer(status: number, body: string, context: string): void {
  expect(DOCUMENTED.has(status), `${status} for ${context}`).toBe(true);
  if (status === 204 || body === "") return;
  const parsed = JSON.parse(body);
  if (status < 400) expect(parsed, context).toHaveProperty("data");
  else {
    expect(typeof parsed.error?.code, context).toBe("string");
    expect(parsed.error.requestId, context).toBe(parsed.metadata.requestId);
  }
}

/** After a run: nothing in flight, Object.prototype untouched, the server still answers. */
async function checkHealthy(server: RunningServer): Promise<void> {
  for (let attempt = 0; attempt < 100 && server.adapter.handler.inFlightCount > 0; attempt++) await sleep(10);
  expect(server.adapter.handler.inFlightCount).toBe(0);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_KEYS);
  expect((await fetch(server.url("/api/items/alive"))).status).toBe(200);
}
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

/** JSON-ish text: valid values, truncations, deep nesting, prototype keys, raw noise. */
const jsonText = fc.oneof(
  fc.json({ maxDepth: 6 }),
  fc.json({ maxDepth: 4 }).map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
  fc.integer({ min: 1, max: 3_000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`),
  fc.integer({ min: 1, max: 3_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
  fc.constantFrom('{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"name":"x","__proto__":[]}'),
  fc.record({ name: fc.string(), tags: fc.array(fc.string()) }).map((value) => JSON.stringify(value)),
  fc.string({ unit: "binary" }),
);
const contentType = fc.constantFrom(
  "application/json",
  "application/x-www-form-urlencoded",
  "text/plain",
  "application/xml",
  "",
  "application/json; charset=utf-16",
);

/** Header names and values, including CRLF injection, NUL, non-ASCII, huge and duplicated ones. */
const headerName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
  fc.constantFrom("__proto__", "constructor", "content-length", "transfer-encoding", "host", "x-request-id"),
  fc.string({ maxLength: 10 }),
);
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("a\r\nInjected: yes", "a\nb", "a\rb", "\u0000", "chunked", "-1", "99999999999999999999"),
  fc.integer({ min: 8_000, max: 40_000 }).map((size) => "v".repeat(size)),
);

/** Path segments: traversal, encodings (valid, invalid, overlong), unicode, separators. */
const segment = fc.oneof(
  fc.constantFrom(
    "..",
    ".",
    "%2e%2e",
    "%2E",
    "%2f",
    "%5c",
    "%00",
    "%",
    "%zz",
    "%c0%ae",
    "%ff",
    "items",
    "api",
    "echo",
    "\\",
    "~",
    "*",
    ":id",
    "",
  ),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,12}$/),
  fc.string({ maxLength: 8 }).map((text) => encodeURIComponent(text)),
);
const path = fc.array(segment, { minLength: 1, maxLength: 8 }).map((segments) => `/${segments.join("/")}`);

/** Query strings with prototype keys, brackets, repeats and broken escapes. */
const queryKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "a[b]", "a[]", "%", "%zz", "format"),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
);
const query = fc
  .array(
    fc.tuple(queryKey, fc.oneof(fc.string({ maxLength: 8 }).map(encodeURIComponent), fc.constantFrom("%", "ndjson", "%00", "a=b", ""))),
    { maxLength: 12 },
  )
  .map((pairs) => pairs.map(([key, value]) => `${key}=${value}`).join("&"));

/** Client → server WebSocket frames: JSON messages of any shape, garbage text, binary. */
const frame = fc.oneof(
  fc
    .record({
      type: fc.constantFrom("generate", "stream", "tool_call", "cancel", "nope", "__proto__", ""),
      id: fc.option(fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { nil: undefined }),
      payload: fc.jsonValue({ maxDepth: 4 }),
    })
    .map((message) => ({ text: JSON.stringify(message) })),
  fc.json({ maxDepth: 4 }).map((text) => ({ text })),
  fc.string({ maxLength: 200 }).map((text) => ({ text })),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ binary: Buffer.from(bytes) })),
  fc.integer({ min: 64 * 1024 + 1, max: 80 * 1024 }).map((size) => ({ text: "x".repeat(size) })),
);

forEachAdapter("fuzz", ({ start }) => {
  it(
    "JSON bodies of any shape and media type",
    async () => {
      const server = await start({ setup: registerRoutes, config: { rateLimit: { enabled: false } } });
      await fc.assert(
        fc.asyncProperty(fc.constantFrom("/api/echo", "/api/typed"), jsonText, contentType, async (route, body, type) => {
          const response = await fetch(server.url(route), {
            method: "POST",
            headers: type ? { "content-type": type } : {},
            body,
            signal: AbortSignal.timeout(5_000),
          });
          checkAnswer(response.status, await response.text(), `${route} ${type} ${body.slice(0, 60)}`);
        }),
        settings,
      );
      await checkHealthy(server);
    },
    TIMEOUT,
  );

  it(
    "headers: CRLF, control bytes, huge and duplicated, over a raw socket",
    async () => {
      const server = await start({ setup: registerRoutes, config: { rateLimit: { enabled: false } } });
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }), async (headers) => {
          const lines = headers.map(([name, value]) => `${name}: ${value}`).join("\r\n");
          const bytes = Buffer.from(
            `GET /api/items/1 HTTP/1.1\r\nHost: x\r\n${lines}${lines ? "\r\n" : ""}Connection: close\r\n\r\n`,
            "latin1",
          );
          const answer = await rawExchange(server.port, bytes, { timeoutMs: 5_000 });
          expect(answer.error === "timeout", "no answer in 5 s").toBe(false);
          // A request the parser cannot even frame may be dropped; anything answered is the envelope.
          if (answer.status !== 0) {
            checkAnswer(answer.status, answer.body, JSON.stringify(headers).slice(0, 200));
            expect(answer.headers.injected).toBeUndefined();
          }
        }),
        settings,
      );
      await checkHealthy(server);
    },
    TIMEOUT,
  );

  it(
    "paths: traversal, encodings, separators",
    async () => {
      const server = await start({ setup: registerRoutes, config: { rateLimit: { enabled: false } } });
      await fc.assert(
        fc.asyncProperty(path, fc.constantFrom("GET", "POST", "OPTIONS", "HEAD", "DELETE"), async (target, method) => {
          const bytes = Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, "latin1");
          const answer = await rawExchange(server.port, bytes, { timeoutMs: 5_000, bodyless: method === "HEAD" });
          expect(answer.error === "timeout", "no answer in 5 s").toBe(false);
          expect(answer.status, target).not.toBe(0);
          checkAnswer(answer.status, method === "HEAD" ? "" : answer.body, `${method} ${target}`);
        }),
        settings,
      );
      await checkHealthy(server);
    },
    TIMEOUT,
  );

  it(
    "query strings: prototype keys, brackets, broken escapes",
    async () => {
      const server = await start({ setup: registerRoutes, config: { rateLimit: { enabled: false } } });
      await fc.assert(
        fc.asyncProperty(query, async (search) => {
          const answer = await rawExchange(
            server.port,
            Buffer.from(`GET /api/query?${search} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, "latin1"),
            { timeoutMs: 5_000 },
          );
          expect(answer.status, search).not.toBe(0);
          checkAnswer(answer.status, answer.body, search);
        }),
        settings,
      );
      await checkHealthy(server);
    },
    TIMEOUT,
  );

  it(
    "WebSocket frames: any message, text or binary, oversized",
    async () => {
      const server = await start({ setup: registerRoutes, config: { rateLimit: { enabled: false } } });
      await fc.assert(
        fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 5 }), async (frames) => {
          const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
          const messages: Array<{ type: string }> = [];
          socket.on("message", (data) => messages.push(JSON.parse(String(data))));
          const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
          socket.on("error", () => undefined);
          await new Promise((resolve) => socket.once("open", resolve));
          for (const next of frames)
            if (socket.readyState === WebSocket.OPEN) socket.send("binary" in next ? next.binary : next.text, { binary: "binary" in next });
          // Every answer is a protocol message; an oversized frame closes with 1009, nothing else closes the socket.
          await sleep(30);
          for (const message of messages) expect(["connected", "result", "stream-event", "tool-result", "error"]).toContain(message.type);
          if (socket.readyState === WebSocket.OPEN) socket.close(1000);
          const code = await Promise.race([closed, sleep(5_000).then(() => -1)]);
          expect([1000, 1005, 1006, 1009]).toContain(code);
        }),
        { ...settings, numRuns: Math.max(5, Math.floor(RUNS / 2)) },
      );
      await checkHealthy(server);
      for (let attempt = 0; attempt < 100 && server.adapter.getActiveConnectionCount() > 1; attempt++) await sleep(20);
      expect(server.adapter.getActiveConnectionCount()).toBeLessThanOrEqual(1);
    },
    TIMEOUT,
  );
});
