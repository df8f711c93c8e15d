import { Writable } from "node:stream";
import { createAuthMiddleware } from "@conduit-ai/auth";
import type { BaseServerAdapter, ServerAdapterConfig } from "@conduit-ai/server-core";
import { createLoggingMiddleware } from "@conduit-ai/server-core/middleware";
import { attachWebSocket } from "@conduit-ai/websocket";
import { expect, it } from "vitest";
import WebSocket from "ws";
import { forEachAdapter } from "./harness.js";

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({
    method: "GET",
    path: "/whoami",
    handler: (ctx) => ({ clientAddress: ctx.clientAddress, peerAddress: ctx.peerAddress }),
  });
}

const limited = (extra: ServerAdapterConfig = {}): ServerAdapterConfig => ({
  // An hour: a fixed window is clock-aligned, and a test crossing its edge would see its budget reset.
  rateLimit: { enabled: true, maxRequests: 2, windowMs: 3_600_000 },
  ...extra,
});

/** Sends `count` requests, each claiming a new leftmost X-Forwarded-For entry (the client's own) before the proxy's. */
async function rotate(url: string, count: number, proxyAppended = "203.0.113.7"): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) {
    const response = await fetch(url, { headers: { "x-forwarded-for": `10.9.${index}.1, ${proxyAppended}` } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

forEachAdapter("client address (trustProxy)", ({ start }) => {
  it("one trusted hop: the rightmost entry is the client; rotating the leftmost buys no budget", async () => {
    const server = await start({ setup: registerRoutes, config: limited({ trustProxy: 1 }) });
    expect(await rotate(server.url("/api/whoami"), 4)).toEqual([200, 200, 429, 429]);
    // Another real client (another address appended by the proxy) has its own budget.
    expect(await rotate(server.url("/api/whoami"), 1, "198.51.100.4")).toEqual([200]);
  });

  it("trusted addresses: loopback proxies are skipped, the first untrusted address is the client", async () => {
    const server = await start({ setup: registerRoutes, config: { trustProxy: ["loopback", "10.0.0.0/8"] } });
    const response = await fetch(server.url("/api/whoami"), { headers: { "x-forwarded-for": "6.6.6.6, 203.0.113.9, 10.1.2.3" } });
    expect((await response.json()).data).toEqual({ clientAddress: "203.0.113.9", peerAddress: expect.stringMatching(/127\.0\.0\.1$/) });
  });

  it("keys the WebSocket upgrade's share of the budget by the same client address", async () => {
    const server = await start({
      setup: (adapter) => {
        registerRoutes(adapter);
        attachWebSocket(adapter);
      },
      config: limited({ trustProxy: 1 }),
    });
    const upgrade = (index: number) =>
      new Promise<number | "open">((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, {
          headers: { "x-forwarded-for": `10.8.${index}.1, 203.0.113.7` },
        });
        socket.once("open", () => {
          socket.close();
          resolve("open");
        });
        socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
        socket.once("error", () => undefined);
      });
    expect(await rotate(server.url("/api/whoami"), 1)).toEqual([200]);
    expect([await upgrade(1), await upgrade(2)]).toEqual(["open", 429]);
  });

  it("without trustProxy (default) X-Forwarded-For is ignored", async () => {
    const server = await start({ setup: registerRoutes, config: limited() });
    expect(await rotate(server.url("/api/whoami"), 3)).toEqual([200, 200, 429]);
    const response = await fetch(server.url("/api/whoami"), { headers: { "x-forwarded-for": "6.6.6.6" } });
    expect((await response.json()).error.code).toBe("RATE_LIMIT_EXCEEDED");
  });

  it("the legacy rateLimit.trustProxy: true means one hop, never the leftmost entry", async () => {
    const server = await start({
      setup: registerRoutes,
      config: { rateLimit: { enabled: true, maxRequests: 2, windowMs: 3_600_000, trustProxy: true } },
    });
    expect(await rotate(server.url("/api/whoami"), 3)).toEqual([200, 200, 429]);
  });

  it("refuses an address that does not parse, naming trustProxy", async () => {
    await expect(start({ config: { trustProxy: "not-an-address" } })).rejects.toThrow(/trustProxy/);
  });

  it("logs, rate limits and audits auth with the same client address", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    });
    const server = await start({
      config: { trustProxy: 1 },
      setup: (adapter) => {
        registerRoutes(adapter);
        adapter.registerMiddleware(createLoggingMiddleware({ destination, basePath: "/api" }));
        adapter.registerMiddleware(createAuthMiddleware({ type: "bearer", validate: () => null, skipPaths: ["/whoami"] }));
        adapter.registerRoute({ method: "GET", path: "/private", handler: () => "secret" });
      },
    });
    const headers = { "x-forwarded-for": "6.6.6.6, 203.0.113.42" };
    const seen = await (await fetch(server.url("/api/whoami"), { headers })).json();
    expect(seen.data.clientAddress).toBe("203.0.113.42");
    expect((await fetch(server.url("/api/private"), { headers })).status).toBe(401);
    const completed = lines.filter((line) => line.msg === "request completed");
    expect(completed.map((line) => line.clientAddress)).toEqual(["203.0.113.42", "203.0.113.42"]);
    expect(lines.find((line) => line.msg === "authentication refused")).toMatchObject({ clientAddress: "203.0.113.42", reason: "missing" });
  });
});
