import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpGatewayConfigError, type McpGateway, createMcpGateway } from "@conduit-ai/mcp-gateway";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { gatewayOf, stdioFixture } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// The MCP endpoint's HTTP contract as a raw client sees it, on every adapter: who gets in (never
// an open endpoint), the JSON-RPC shape of every refusal, sessions by header, DELETE, health.
const CLIENT_KEY = "mcp-client-key-for-conformance-0123";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

it("refuses to be built without a client credential: never an open endpoint", () => {
  expect(() => createMcpGateway({ servers: { local: stdioFixture().config } })).toThrow(McpGatewayConfigError);
  expect(() => createMcpGateway({ servers: { local: stdioFixture().config } })).toThrow(/never open/);
  expect(() => createMcpGateway({ servers: { a__b: stdioFixture().config }, clientKeys: [CLIENT_KEY] })).toThrow(/letters, digits/);
});

forEachAdapter("mcp gateway over HTTP", ({ start }) => {
  const gateways: McpGateway[] = [];
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close();
  });

  async function serve() {
    const gateway = gatewayOf({ servers: { local: stdioFixture().config }, clientKeys: [CLIENT_KEY] }, gateways);
    const server = await start({
      setup: (adapter) => {
        registerAllRoutes(adapter);
        gateway.install(adapter);
      },
    });
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url("/mcp"), {
        method: "POST",
        headers: { ...JSON_HEADERS, authorization: `Bearer ${CLIENT_KEY}`, ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const session = async () => {
      const response = await post(INITIALIZE);
      expect(response.status).toBe(200);
      return response.headers.get("mcp-session-id") as string;
    };
    return { server, post, session };
  }

  it("401 with a Bearer challenge for no or a wrong credential, in JSON-RPC's shape; the key opens a session", async () => {
    const { server, post } = await serve();
    const none = await fetch(server.url("/mcp"), { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="mcp"');
    expect(await none.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, data: { code: "AUTH_REQUIRED" } } });
    const wrong = await post(INITIALIZE, { authorization: "Bearer not-the-key-0123456789" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const opened = await post(INITIALIZE);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("mcp-session-id")).toMatch(/^[\x21-\x7e]{20,}$/);
    expect(await opened.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-06-18",
        serverInfo: { name: "conduit-mcp-gateway" },
        capabilities: { tools: { listChanged: true } },
      },
    });
  });

  it("negotiates 2025-11-25 and 2025-06-18, answers the newest to an unknown revision, refuses an unknown MCP-Protocol-Version header", async () => {
    const { post, session } = await serve();
    for (const [asked, answered] of [
      ["2025-11-25", "2025-11-25"],
      ["2025-06-18", "2025-06-18"],
      ["1999-01-01", "2025-11-25"],
    ]) {
      const response = await post({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: asked } });
      expect(((await response.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(answered);
    }
    const id = await session();
    const refused = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": "2023-01-01" });
    expect(refused.status).toBe(400);
    const pinged = await post({ jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
    expect(await pinged.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("bad messages: 400 -32700 for broken JSON, 400 for a batch, 415 for another type, 406 for an Accept without JSON or SSE, -32601 for an unknown method", async () => {
    const { post, session } = await serve();
    const broken = await post("{not json");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const batch = await post([INITIALIZE]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("batches") } });
    expect((await post(INITIALIZE, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(INITIALIZE, { accept: "text/html" })).status).toBe(406);
    const id = await session();
    const unknown = await post({ jsonrpc: "2.0", id: 5, method: "sampling/createMessage", params: {} }, { "mcp-session-id": id });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ id: 5, error: { code: -32601 } });
    const notification = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id });
    expect(notification.status).toBe(202);
  });

  it("sessions: 400 without Mcp-Session-Id, 404 for an unknown one, DELETE ends it (then 404)", async () => {
    const { server, post, session } = await serve();
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const missing = await post(ping);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { message: expect.stringContaining("Mcp-Session-Id") } });
    expect((await post(ping, { "mcp-session-id": "no-such-session" })).status).toBe(404);
    const id = await session();
    expect((await post(ping, { "mcp-session-id": id })).status).toBe(200);
    const ended = await fetch(server.url("/mcp"), {
      method: "DELETE",
      headers: { authorization: `Bearer ${CLIENT_KEY}`, "mcp-session-id": id },
    });
    expect(ended.status).toBe(200);
    const after = await post(ping, { "mcp-session-id": id });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: { data: { code: "SESSION_NOT_FOUND" } } });
  });

  it("the GET stream is SSE for a live session; /api/health/detailed lists each upstream", async () => {
    const { server, session } = await serve();
    const id = await session();
    const controller = new AbortController();
    const stream = await fetch(server.url("/mcp"), {
      headers: { authorization: `Bearer ${CLIENT_KEY}`, "mcp-session-id": id, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    controller.abort();
    // The first check starts the probe's own stdio server; on a loaded machine that cold start can
    // outlast a probe's 2 s, so the check is asked again until the server answers (or 15 s pass).
    let text = "";
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      text = await (await fetch(server.url("/api/health/detailed"))).text();
      if (/"mcp-gateway:local":\{"status":"ok"/.test(text)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(text).toMatch(/"mcp-gateway:local":\{"status":"ok"/);
  });

  it("/api/health/detailed says down for a server that does not answer, within the probe's 2 s, beside the live one", async () => {
    // A server that accepts connections and never answers: the health check must not wait on it.
    const hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/mcp`;
      const gateway = gatewayOf({ servers: { local: stdioFixture().config, hung: { url } }, clientKeys: [CLIENT_KEY] }, gateways);
      const server = await start({
        setup: (adapter) => {
          registerAllRoutes(adapter);
          gateway.install(adapter);
        },
      });
      const started = performance.now();
      const health = await (await fetch(server.url("/api/health/detailed"))).json();
      expect(performance.now() - started).toBeLessThan(10_000);
      const checks = JSON.stringify(health);
      expect(checks).toMatch(/"mcp-gateway:hung":\{"status":"down","required":false,"message":"[^"]*within 2000 ms/);
    } finally {
      hung.closeAllConnections();
      hung.close();
    }
  });
});
