import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { mcpTestBed } from "./fixtures/mcp-gateway-bed.js";
import { connectClient, eventually, everythingStdio, gatewayOf, mintKey, stdioFixture } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// The MCP gateway as the official SDK client sees it, on every adapter: upstreams over stdio
// (the SDK-made fixture, server-everything) and Streamable HTTP, one endpoint, namespaced names.
forEachAdapter("mcp gateway", ({ start }) => {
  const bed = mcpTestBed();

  async function serve(options: { requestTimeoutMs?: number; local?: ReturnType<typeof stdioFixture>; everything?: boolean } = {}) {
    const local = options.local ?? stdioFixture();
    const gateway = gatewayOf(
      {
        servers: { local: local.config, web: { url: bed.web.url }, ...(options.everything ? { everything: everythingStdio } : {}) },
        gate: bed.governance.gate,
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      },
      bed.gateways,
    );
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        bed.governance.install(adapter);
        gateway.install(adapter);
      },
    });
    const connect = async (key: string) => {
      const connected = await connectClient(server.url("/mcp"), key);
      bed.clients.push(connected.client);
      return connected;
    };
    return {
      server,
      gateway,
      local,
      connect,
      mint: (key: Record<string, unknown>, team?: Record<string, unknown>) => mintKey(server.url(""), key, team),
    };
  }

  it("lists every server's tools namespaced and calls them over stdio, Streamable HTTP and server-everything", async () => {
    const { connect, mint } = await serve({ everything: true });
    const { client } = await connect(await mint({ name: "agent" }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["local__add", "web__add", "local__slow", "everything__echo", "everything__get-sum"]));
    expect(names.every((name) => /^(local|web|everything)__/.test(name))).toBe(true);
    expect(await client.callTool({ name: "local__add", arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: "text", text: "5" }],
    });
    expect(await client.callTool({ name: "web__add", arguments: { a: 4, b: 5 } })).toMatchObject({
      content: [{ type: "text", text: "9" }],
    });
    const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "through the gateway" } });
    expect(JSON.stringify(echoed.content)).toContain("through the gateway");
    expect(client.getServerVersion()).toMatchObject({ name: "conduit-mcp-gateway" });
  });
  it("prompts, completion, resources and templates of every server, namespaced both ways", async () => {
    const { connect, mint } = await serve({ everything: true });
    const { client } = await connect(await mint({ name: "agent" }));
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(prompts).toEqual(expect.arrayContaining(["local__greet", "web__greet", "everything__simple-prompt"]));
    const prompt = await client.getPrompt({ name: "web__greet", arguments: { color: "green" } });
    expect(prompt.messages[0]?.content).toMatchObject({ type: "text", text: "Say hello in green" });
    const colors = await client.complete({ ref: { type: "ref/prompt", name: "local__greet" }, argument: { name: "color", value: "bl" } });
    expect(colors.completion.values).toEqual(["blue", "black"]);
    const resources = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(resources).toEqual(expect.arrayContaining(["local__fixture://readme", "web__fixture://counter"]));
    expect((await client.readResource({ uri: "local__fixture://readme" })).contents).toEqual([
      expect.objectContaining({ uri: "local__fixture://readme", text: "readme of local" }),
    ]);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(["local__fixture://items/{id}", "web__fixture://items/{id}"]));
    // A URI expanded from a namespaced template keeps its prefix, so it routes back on any replica.
    expect((await client.readResource({ uri: "web__fixture://items/7" })).contents[0]).toMatchObject({
      uri: "web__fixture://items/7",
      text: "item 7",
    });
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "local__fixture://items/{id}" },
      argument: { name: "id", value: "1" },
    });
    expect(ids.completion.values).toEqual(["1", "10"]);
    await expect(client.getPrompt({ name: "nowhere__greet" })).rejects.toMatchObject({ code: -32601 });
  });

  it("an upstream's list change and a subscribed resource's update reach the client on its GET stream", async () => {
    const { connect, mint } = await serve();
    const { client } = await connect(await mint({ name: "agent" }));
    let listChanged = 0;
    const updated: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => void updated.push(notification.params.uri));
    await client.listTools();
    await client.callTool({ name: "local__add_tool", arguments: { name: "late" } });
    await eventually(() => listChanged > 0);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("local__late");
    await client.subscribeResource({ uri: "web__fixture://counter" });
    await client.callTool({ name: "web__bump", arguments: {} });
    await eventually(() => updated.length > 0);
    expect(updated).toEqual(["web__fixture://counter"]);
    await client.unsubscribeResource({ uri: "web__fixture://counter" });
    await client.callTool({ name: "web__bump", arguments: {} });
    expect((await client.readResource({ uri: "web__fixture://counter" })).contents[0]).toMatchObject({ text: "2" });
    expect(updated).toHaveLength(1);
  });

  it("progress reaches the client with its own token; a cancelled call is cancelled upstream", async () => {
    const { connect, mint, server } = await serve({ everything: true });
    const key = await mint({ name: "agent" });
    const { client, transport } = await connect(key);
    // On the wire: the SSE answer carries every progress notification, with the client's token, before the result.
    const streamed = await fetch(server.url("/mcp"), {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId as string,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 77,
        method: "tools/call",
        params: { name: "local__progress", arguments: { steps: 3 }, _meta: { progressToken: "client-token" } },
      }),
    });
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await streamed.text())
      .split("\n\n")
      .filter((frame) => frame.includes("data: "))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)));
    expect(events).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1, total: 3, progressToken: "client-token" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 2, total: 3, progressToken: "client-token" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 3, total: 3, progressToken: "client-token" } },
      { jsonrpc: "2.0", id: 77, result: { content: [{ type: "text", text: "done in 3 steps" }] } },
    ]);
    const progress: number[] = [];
    const result = await client.callTool({ name: "local__progress", arguments: { steps: 3 } }, undefined, {
      onprogress: (update) => void progress.push(update.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "done in 3 steps" }]);
    // The SDK client handles a notification a microtask after a response read in the same chunk:
    // on a loaded machine a progress that arrives with the result loses that race in the client.
    expect(progress[0]).toBe(1);
    const everything: number[] = [];
    await client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } }, undefined, {
      onprogress: (update) => void everything.push(update.progress),
    });
    // server-everything sends its last progress right before the result; the SDK's client handles a
    // notification a microtask later than a response, so that last one may lose the race upstream.
    expect(everything[0]).toBe(1);
    const controller = new AbortController();
    const call = client.callTool({ name: "web__slow", arguments: { ms: 10_000 } }, undefined, { signal: controller.signal });
    await eventually(() => bed.web.requests.filter((request) => request.method === "POST").length >= 3);
    setTimeout(() => controller.abort("changed my mind"), 100);
    await expect(call).rejects.toThrow();
    await eventually(() => bed.web.cancelled.length === 1);
  });
  it("a key's and its team's mcp policies: what it may not use is absent from its lists and refused on call with -32601", async () => {
    const { connect, mint } = await serve();
    const key = await mint(
      { name: "limited", team: "red", mcp: { tools: ["local__*", "web__add", "!local__delete_*"] } },
      { id: "red", name: "Red", mcp: { servers: ["local", "web"] } },
    );
    const { client } = await connect(key);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("local__add");
    expect(names).toContain("web__add");
    expect(names).not.toContain("local__delete_all");
    expect(names).not.toContain("web__slow");
    await expect(client.callTool({ name: "local__delete_all", arguments: {} })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('Tool "local__delete_all" is not allowed for this key'),
    });
    await expect(client.callTool({ name: "web__slow", arguments: { ms: 1 } })).rejects.toMatchObject({ code: -32601 });
    expect(await client.callTool({ name: "web__add", arguments: { a: 1, b: 1 } })).toMatchObject({ content: [{ text: "2" }] });
    // A team limited to one server hides the other's prompts and resources too.
    const narrow = await mint({ name: "narrow", team: "blue" }, { id: "blue", name: "Blue", mcp: { servers: ["web"] } });
    const { client: other } = await connect(narrow);
    expect((await other.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["web__greet"]);
    await expect(other.readResource({ uri: "local__fixture://readme" })).rejects.toMatchObject({ code: -32601 });
  });

  it("tool calls count against the key's rpm (listings do not) and are recorded as kind tool usage events", async () => {
    // Away from a minute's edge, so the count stays in one window.
    if (Date.now() % 60_000 > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 200));
    const { connect, mint } = await serve();
    const { client } = await connect(await mint({ name: "metered", limits: { rpm: 2 } }));
    for (let listing = 0; listing < 3; listing++) await client.listTools();
    await client.callTool({ name: "local__add", arguments: { a: 1, b: 2 } });
    await client.callTool({ name: "web__add", arguments: { a: 1, b: 2 } });
    await expect(client.callTool({ name: "local__add", arguments: { a: 1, b: 2 } })).rejects.toMatchObject({
      code: -32003,
      data: expect.objectContaining({ reason: "rate_limited" }),
    });
    // The session goes on: listing is not a tool call.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const now = new Date();
    await eventually(
      async () =>
        (
          await bed.governance.usage.query({
            groupBy: "model",
            from: new Date(now.getTime() - 60_000),
            to: new Date(now.getTime() + 60_000),
          })
        ).length === 2,
    );
    const rows = await bed.governance.usage.query({
      groupBy: "model",
      from: new Date(now.getTime() - 60_000),
      to: new Date(now.getTime() + 60_000),
    });
    expect(rows).toEqual([
      expect.objectContaining({ group: "local__add", requests: 1, inputTokens: 0, costUsd: 0 }),
      expect.objectContaining({ group: "web__add", requests: 1 }),
    ]);
  });

  // The contract is an error naming the server within `mcp.requestTimeoutMs`, nothing tighter:
  // each deadline below is the configured timeout (generous, for a loaded machine), never a guess.
  it("an upstream killed mid-call: a JSON-RPC error naming the server within mcp.requestTimeoutMs, the others keep working", async () => {
    const requestTimeoutMs = 15_000;
    const local = stdioFixture();
    const { connect, mint } = await serve({ local, requestTimeoutMs });
    const { client } = await connect(await mint({ name: "agent" }));
    await client.callTool({ name: "local__add", arguments: { a: 1, b: 1 } });
    const [pid] = local.pids();
    const started = Date.now();
    const inFlight = client.callTool({ name: "local__slow", arguments: { ms: 60_000 } }, undefined, { timeout: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(pid as number, "SIGKILL");
    // A lost connection fails the call at once (-32000), not at the timeout (-32001).
    await expect(inFlight).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('MCP server "local"') });
    expect(Date.now() - started).toBeLessThan(requestTimeoutMs);
    expect(await client.callTool({ name: "web__add", arguments: { a: 2, b: 2 } })).toMatchObject({ content: [{ text: "4" }] });
    // The next call starts the server again.
    expect(await client.callTool({ name: "local__add", arguments: { a: 3, b: 3 } })).toMatchObject({ content: [{ text: "6" }] });
    expect(local.pids()).toHaveLength(2);
  }, 40_000);

  it("a slow upstream: -32001 naming the server once mcp.requestTimeoutMs has passed, the others keep working", async () => {
    // The deadline holds for every server, connecting included, so the local stdio server is started
    // (by a first call) before the slow one is timed; on a loaded machine its cold start can outlast
    // 3 s, so that first call may be repeated until the process is up.
    const requestTimeoutMs = 3_000;
    const { connect, mint } = await serve({ requestTimeoutMs });
    const { client } = await connect(await mint({ name: "agent" }));
    const warmUp = () => client.callTool({ name: "local__add", arguments: { a: 2, b: 2 } });
    let first = await warmUp().catch((error: unknown) => error);
    for (let attempt = 1; attempt < 5 && first instanceof Error; attempt++) first = await warmUp().catch((error: unknown) => error);
    expect(first).toMatchObject({ content: [{ text: "4" }] });
    const started = Date.now();
    await expect(client.callTool({ name: "web__slow", arguments: { ms: 60_000 } }, undefined, { timeout: 60_000 })).rejects.toMatchObject({
      code: -32001,
      message: expect.stringContaining(`MCP server "web" did not answer tools/call within ${requestTimeoutMs} ms`),
    });
    // Not before the configured deadline; after it, only a loaded machine's lag (generous).
    expect(Date.now() - started).toBeGreaterThanOrEqual(requestTimeoutMs - 50);
    expect(Date.now() - started).toBeLessThan(requestTimeoutMs + 15_000);
    expect(await client.callTool({ name: "local__add", arguments: { a: 1, b: 2 } })).toMatchObject({ content: [{ text: "3" }] });
  }, 60_000);
});
