import { type McpHttpFixture, startMcpHttpFixture } from "@conduit-ai/fakes";
import { randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConduitProcess, startConduit, suiteFrameworks } from "./fixtures/conduit-process.js";
import { connectClient, stdioFixture } from "./fixtures/mcp-gateway-kit.js";

// Two `conduit serve` processes on one real Redis (issue: "Session not found" at two replicas):
// a session opened on one continues on the other — its upstream HTTP session continued by id,
// its stdio server started afresh there — and DELETE on one ends it on both.
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CLIENT_KEY = "mcp-replicas-client-key-0123456789";

describe.each(suiteFrameworks())("mcp gateway sessions across two processes on one Redis [%s]", (framework) => {
  let web: McpHttpFixture;
  let local: ReturnType<typeof stdioFixture>;
  const processes: ConduitProcess[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    web = await startMcpHttpFixture({ name: "web" });
    local = stdioFixture();
    const config = {
      mcpServers: { local: local.config, web: { url: web.url } },
      mcpGateway: { enabled: true, clientKeys: [CLIENT_KEY] },
      mcp: { requestTimeoutMs: 5_000 },
    };
    const env = { REDIS_URL, REDIS_KEY_PREFIX: `test:mcp-replicas:${randomBytes(4).toString("hex")}:` };
    processes.push(...(await Promise.all([startConduit({ framework, config, env }), startConduit({ framework, config, env })])));
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const conduit of processes) {
      conduit.child.kill("SIGTERM");
      await conduit.exited;
    }
    await web.close();
  });

  it("a session started on one process continues on the other, a cancellation sent to the other reaches the call, DELETE on the other ends it for both", async () => {
    const [first, second] = processes as [ConduitProcess, ConduitProcess];
    // Each process's runtime holds an upstream session of its own (its MCP client, `mcpServers`).
    const runtimes = web.sessionCount;
    const opened = await connectClient(first.url("/mcp"), CLIENT_KEY);
    clients.push(opened.client);
    const sessionId = opened.transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    expect(await opened.client.callTool({ name: "web__add", arguments: { a: 1, b: 2 } })).toMatchObject({ content: [{ text: "3" }] });
    await opened.client.subscribeResource({ uri: "local__fixture://counter" });
    expect(web.sessionCount).toBe(runtimes + 1);
    const stdioStarts = local.pids().length;

    // The same session id, sent to the other process: no initialize, the calls just work.
    const continued = await connectClient(second.url("/mcp"), CLIENT_KEY, { sessionId });
    clients.push(continued.client);
    expect(await continued.client.callTool({ name: "web__add", arguments: { a: 20, b: 22 } })).toMatchObject({ content: [{ text: "42" }] });
    expect(await continued.client.callTool({ name: "local__add", arguments: { a: 2, b: 2 } })).toMatchObject({ content: [{ text: "4" }] });
    const names = (await continued.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["local__add", "web__add"]));
    // The upstream HTTP session was continued by its id, not opened again; the stdio server was started there.
    expect(web.sessionCount).toBe(runtimes + 1);
    expect(local.pids().length).toBe(stdioStarts + 1);

    // The subscription made on the first process was applied to the stdio server the second started:
    // its update reaches the session's GET stream there.
    const stream = await fetch(second.url("/mcp"), {
      headers: { authorization: `Bearer ${CLIENT_KEY}`, accept: "text/event-stream", "mcp-session-id": sessionId },
    });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await continued.client.callTool({ name: "local__bump", arguments: {} });
    let received = "";
    const until = Date.now() + 5_000;
    while (!received.includes("notifications/resources/updated") && Date.now() < until) {
      const chunk = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(resolve, until - Date.now()))]);
      if (!chunk || chunk.done) break;
      received += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    expect(received).toContain('"uri":"local__fixture://counter"');

    // A cancellation sent to the other process reaches the call where it runs (Redis pub/sub).
    const post = (conduit: ConduitProcess, body: unknown) =>
      fetch(conduit.url("/mcp"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${CLIENT_KEY}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
        },
        body: JSON.stringify(body),
      });
    const slow = post(first, {
      jsonrpc: "2.0",
      id: "slow-1",
      method: "tools/call",
      params: { name: "web__slow", arguments: { ms: 20_000 } },
    });
    // The call reaches the upstream (the POSTs it saw grow), then it is cancelled elsewhere.
    const posts = () => web.requests.filter((request) => request.method === "POST").length;
    const before = posts();
    for (let waited = 0; posts() === before && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancelled = web.cancelled.length;
    expect(cancelled).toBe(0);
    expect((await post(second, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow-1" } })).status).toBe(202);
    const answer = await slow;
    expect(((await answer.json()) as { error?: { code: number } }).error).toBeDefined();
    // The client's answer comes first; the upstream handles the relayed notifications/cancelled on its own time.
    for (let waited = 0; web.cancelled.length === cancelled && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(web.cancelled.length).toBe(cancelled + 1);

    await continued.transport.terminateSession();
    const gone = await fetch(first.url("/mcp"), {
      method: "POST",
      headers: {
        authorization: `Bearer ${CLIENT_KEY}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(gone.status).toBe(404);
    // Ending the session ended its upstream session too.
    expect(web.sessionCount).toBe(runtimes);
  });
});
