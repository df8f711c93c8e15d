import type { BaseServerAdapter } from "@conduit-ai/server-core";
import { afterAll, describe, expect, it } from "vitest";
import { ADAPTERS } from "./adapters.js";
import { TEST_CONFIG, forEachAdapter } from "./harness.js";
import { type RawExchange, rawExchange } from "./raw-socket.js";

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "GET", path: "/ok", handler: () => ({ ok: true }) });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
}

/** Requests no well-behaved client sends, each with what every adapter must answer. */
const HOSTILE: Array<{ name: string; bytes: string; status: number; code?: string }> = [
  { name: "malformed request line", bytes: "GARBAGE\r\n\r\n", status: 400, code: "VALIDATION_ERROR" },
  { name: "unknown method token", bytes: "FOO /api/ok HTTP/1.1\r\nHost: x\r\n\r\n", status: 400, code: "VALIDATION_ERROR" },
  {
    name: "Content-Length with Transfer-Encoding (smuggling)",
    bytes:
      "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/ok HTTP/1.1\r\nHost: x\r\n\r\n",
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "two different Content-Lengths (smuggling)",
    bytes: "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 12\r\n\r\n{}",
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "header without a colon",
    bytes: "GET /api/ok HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n",
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "control byte in a header value",
    bytes: "GET /api/ok HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n",
    status: 400,
    code: "VALIDATION_ERROR",
  },
  {
    name: "oversized headers",
    bytes: `GET /api/ok HTTP/1.1\r\nHost: x\r\nX-Huge: ${"a".repeat(20_000)}\r\n\r\n`,
    status: 431,
    code: "HEADERS_TOO_LARGE",
  },
  { name: "HTTP/1.1 without Host", bytes: "GET /api/ok HTTP/1.1\r\nConnection: close\r\n\r\n", status: 400, code: "VALIDATION_ERROR" },
  { name: "asterisk-form for GET", bytes: "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", status: 400, code: "VALIDATION_ERROR" },
  {
    name: "CONNECT (no proxying)",
    bytes: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    status: 405,
    code: "METHOD_NOT_ALLOWED",
  },
  {
    name: "a method nobody routes (PROPFIND)",
    bytes: "PROPFIND /api/ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    status: 404,
    code: "ROUTE_NOT_FOUND",
  },
];

function expectEnvelope(answer: RawExchange, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body);
  if (code) expect(body.error.code).toBe(code);
  expect(body.error.requestId).toBe(body.metadata.requestId);
  expect(answer.headers["x-request-id"]).toBe(body.metadata.requestId);
}

forEachAdapter("answers that never reach a route", ({ start }) => {
  for (const { name, bytes, status, code } of HOSTILE) {
    it(`${name} → ${status} envelope`, async () => {
      const server = await start({ setup: registerRoutes });
      const answer = await rawExchange(server.port, bytes);
      expectEnvelope(answer, status, code);
      // The smuggled second request is never answered.
      expect(answer.body).not.toContain('"ok":true');
      // And the server keeps serving.
      expect((await fetch(server.url("/api/ok"))).status).toBe(200);
    });
  }

  it("serves HTTP/1.0 without Host like any request", async () => {
    const server = await start({ setup: registerRoutes });
    const answer = await rawExchange(server.port, "GET /api/ok HTTP/1.0\r\n\r\n");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data).toEqual({ ok: true });
  });

  it("answers OPTIONS * with 204 and the methods the server understands", async () => {
    const server = await start({ setup: registerRoutes });
    const answer = await rawExchange(server.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer.status).toBe(204);
    expect(answer.headers.allow).toBe("HEAD, GET, POST, PUT, DELETE, PATCH, OPTIONS");
    expect(answer.body).toBe("");
  });

  it("serves an absolute-form target by its path", async () => {
    const server = await start({ setup: registerRoutes });
    const answer = await rawExchange(
      server.port,
      "GET http://example.com/api/ok?x=1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n",
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data).toEqual({ ok: true });
  });
});

/** Values that differ per request (ids, clocks), so the rest can be compared byte for byte. */
function normalized(answer: RawExchange): string {
  const headers = Object.entries(answer.headers)
    .filter(([name]) => !["date", "x-request-id", "x-response-time", "server-timing", "keep-alive"].includes(name))
    // The rate-limit window starts at each server's first request, so its reset second may differ by one;
    // the length follows the body's timing fields (normalized below), whose digits vary per request.
    .map(([name, value]) => `${name}: ${name === "x-ratelimit-reset" || name === "content-length" ? "*" : value}`)
    .sort();
  const body = answer.body
    .replace(/"requestId":"[^"]+"/g, '"requestId":"*"')
    .replace(/"timestamp":"[^"]+"/g, '"timestamp":"*"')
    .replace(/"duration":[0-9.]+/g, '"duration":*');
  return [answer.statusLine, ...headers, "", body].join("\n");
}

describe("answers outside the routes are the same bytes on every adapter", () => {
  const servers: BaseServerAdapter<unknown>[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop().catch(() => undefined);
  });

  it("compares every hostile request's answer across hono, express, fastify and koa", async () => {
    for (const { create } of ADAPTERS) {
      const adapter = create(undefined, TEST_CONFIG);
      registerRoutes(adapter);
      await adapter.start();
      servers.push(adapter);
    }
    const cases = [
      ...HOSTILE.map((entry) => entry.bytes),
      "GET /api/ok HTTP/1.0\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ];
    for (const bytes of cases) {
      const answers = await Promise.all(servers.map(async (server) => normalized(await rawExchange(server.address()?.port ?? 0, bytes))));
      for (const [index, answer] of answers.entries())
        expect(answer, `${ADAPTERS[index]?.framework}: ${bytes.slice(0, 40)}`).toBe(answers[0]);
    }
  });
});
