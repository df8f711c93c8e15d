import { randomUUID } from "node:crypto";
import { type IdentityServer, startIdentityServer } from "@conduit-ai/fakes";
import { type McpGateway, oauthFromAuthProvider } from "@conduit-ai/mcp-gateway";
import { FAIL_FAST_REDIS_OPTIONS } from "@conduit-ai/server-core/internal";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { connectClient, eventually, gatewayOf, stdioFixture } from "./fixtures/mcp-gateway-kit.js";
import { type ThrowawayRedis, startThrowawayRedis } from "./fixtures/throwaway-redis.js";
import { forEachAdapter } from "./harness.js";

// What the MCP endpoint answers while what it depends on is out: its Redis (sessions) and the
// identity provider that validates OAuth tokens — 503 in JSON-RPC's shape with Retry-After, at
// once (never a hang, never a 401 that would send the client to re-authenticate), and service
// again when it is back.
const CLIENT_KEY = "mcp-outages-client-key-0123456789";
const RESOURCE = "https://gateway.example/mcp";

let redis: ThrowawayRedis;
const redisClients: Redis[] = [];
beforeAll(async () => {
  // Persistent: a session recorded before the outage is still there after it.
  redis = await startThrowawayRedis({ persistent: true });
});
afterAll(async () => {
  for (const client of redisClients) client.disconnect();
  await redis.stop();
});

/** A raw request to the endpoint, timed. */
async function send(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }) {
  const began = performance.now();
  const response = await fetch(url, {
    method: init.method,
    headers: init.headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { response, text: await response.text(), elapsedMs: performance.now() - began };
}

function expectUnavailable(answer: Awaited<ReturnType<typeof send>>, code: string, retryAfter: string, secret: string) {
  expect(answer.response.status, answer.text).toBe(503);
  expect(answer.response.headers.get("retry-after")).toBe(retryAfter);
  expect(answer.response.headers.get("www-authenticate")).toBeNull();
  expect(JSON.parse(answer.text)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32603, data: { code } } });
  // Neither the credential nor the dependency's address reaches the client.
  expect(answer.text).not.toContain(secret);
  expect(answer.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
}

forEachAdapter("mcp gateway outages", ({ framework, start }) => {
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  let idp: IdentityServer | undefined;
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await idp?.close().catch(() => undefined);
    idp = undefined;
    // Every case leaves Redis up for the next one.
    redis.resume();
    await redis.restart();
  });

  it("Redis down or hung: session operations answer 503 STORE_UNAVAILABLE with Retry-After at once; the session continues once it is back", async () => {
    const client = new Redis(redis.url, { ...FAIL_FAST_REDIS_OPTIONS });
    client.on("error", () => undefined);
    redisClients.push(client);
    const gateway = gatewayOf(
      { servers: { local: stdioFixture().config }, clientKeys: [CLIENT_KEY], redis: client, keyPrefix: `test:${randomUUID()}:` },
      gateways,
    );
    const server = await start({ setup: (adapter) => gateway.install(adapter) });
    const connected = await connectClient(server.url("/mcp"), CLIENT_KEY);
    clients.push(connected.client);
    expect(await connected.client.callTool({ name: "local__add", arguments: { a: 1, b: 2 } })).toMatchObject({ content: [{ text: "3" }] });
    const headers = {
      authorization: `Bearer ${CLIENT_KEY}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": connected.transport.sessionId as string,
    };
    const url = server.url("/mcp");
    const ping = { method: "POST", headers, body: { jsonrpc: "2.0", id: 1, method: "ping" } };
    const initialize = {
      method: "POST",
      headers,
      body: {
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
    };

    await redis.kill();
    await eventually(() => client.status !== "ready", 10_000);
    const operations: Array<Parameters<typeof send>[1]> = [
      ping,
      initialize,
      { method: "GET", headers: { ...headers, accept: "text/event-stream" } },
      { method: "DELETE", headers },
    ];
    for (const request of operations) {
      const answer = await send(url, request);
      expectUnavailable(answer, "STORE_UNAVAILABLE", "2", CLIENT_KEY);
      // At once: a down Redis is refused by the client, never waited for (generous for a loaded machine).
      expect(answer.elapsedMs).toBeLessThan(5_000);
      console.log(
        `[${framework}] ${request.method} ${(request.body as { method?: string } | undefined)?.method ?? ""} with Redis down: 503 in ${answer.elapsedMs.toFixed(1)} ms`,
      );
    }
    await expect(connected.client.callTool({ name: "local__add", arguments: { a: 1, b: 1 } })).rejects.toThrow(
      /mcp sessions store is unavailable/,
    );

    await redis.restart();
    await eventually(async () => (await send(url, ping)).response.status === 200, 15_000);
    // The same session goes on: nothing recorded before the outage was lost.
    expect(await connected.client.callTool({ name: "local__add", arguments: { a: 2, b: 2 } })).toMatchObject({ content: [{ text: "4" }] });

    // A hung Redis (it keeps its connections but answers nothing) is given the store deadline, not the request's.
    redis.pause();
    const hung = await send(url, ping);
    expectUnavailable(hung, "STORE_UNAVAILABLE", "2", CLIENT_KEY);
    expect(hung.elapsedMs).toBeLessThan(10_000);
    console.log(`[${framework}] ping with Redis hung: 503 in ${hung.elapsedMs.toFixed(1)} ms`);
    redis.resume();
    await eventually(async () => (await send(url, ping)).response.status === 200, 15_000);
  }, 60_000);

  it("the identity provider failing or unreachable while a token is validated: 503 AUTH_PROVIDER_UNAVAILABLE with Retry-After, not 401; valid again once it is back", async () => {
    idp = await startIdentityServer();
    const provider = { type: "jwt", issuer: idp.issuer, jwksCooldownMs: 0, verifiedCacheTtlMs: 0 };
    const gateway = gatewayOf(
      { servers: { local: stdioFixture().config }, oauth: await oauthFromAuthProvider("corp", provider, RESOURCE) },
      gateways,
    );
    const server = await start({ setup: (adapter) => gateway.install(adapter) });
    const initialize = (token: string) =>
      send(server.url("/mcp"), {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        },
      });
    expect((await initialize(await idp.sign({ sub: "ada", aud: RESOURCE }))).response.status).toBe(200);

    // A token signed by a new key makes the gateway fetch the key set again — from an identity provider failing.
    await idp.rotate();
    const token = await idp.sign({ sub: "ada", aud: RESOURCE });
    idp.failWith(503);
    expectUnavailable(await initialize(token), "AUTH_PROVIDER_UNAVAILABLE", "5", token);
    idp.failWith(undefined);
    expect((await initialize(token)).response.status).toBe(200);
    // A token for another resource is still 401 (its audience is checked once the keys are known).
    const other = await initialize(await idp.sign({ sub: "ada", aud: "https://elsewhere.example/mcp" }));
    expect(other.response.status).toBe(401);

    // Gone altogether: connections refused.
    await idp.rotate();
    const later = await idp.sign({ sub: "ada", aud: RESOURCE });
    await idp.close();
    idp = undefined;
    expectUnavailable(await initialize(later), "AUTH_PROVIDER_UNAVAILABLE", "5", later);
  });
});
