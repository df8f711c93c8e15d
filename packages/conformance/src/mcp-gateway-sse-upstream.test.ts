import { type McpGateway, mcpGatewayFromConfig } from "@conduit-ai/mcp-gateway";
import { type McpHttpFixture, startMcpHttpFixture } from "@conduit-ai/fakes";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import { connectClient, eventually } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// An upstream on the older HTTP+SSE transport (protocol 2024-11-05; the SDK's SSEServerTransport),
// configured as `"transport": "sse"`: the official SDK client sees it through the gateway like any
// other server — listings, calls, progress, and its notifications on the client's GET stream.
const CLIENT_KEY = "mcp-sse-upstream-client-key-0123456789";

forEachAdapter("mcp gateway with an HTTP+SSE upstream", ({ start }) => {
  let legacy: McpHttpFixture;
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  beforeEach(async () => {
    legacy = await startMcpHttpFixture({ name: "legacy", transport: "sse" });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await legacy.close();
  });

  async function connect() {
    const gateway = await mcpGatewayFromConfig({
      mcpGateway: { enabled: true, clientKeys: [CLIENT_KEY] },
      mcpServers: {
        legacy: { url: legacy.url, transport: "sse", auth: { mode: "static", headers: { authorization: "Bearer legacy-secret" } } },
      },
      mcp: { requestTimeoutMs: 10_000 },
    });
    if (!gateway) throw new Error("the gateway is enabled");
    gateways.push(gateway);
    const server = await start({ setup: (adapter) => gateway.install(adapter) });
    const connected = await connectClient(server.url("/mcp"), CLIENT_KEY);
    clients.push(connected.client);
    return connected.client;
  }

  it("lists, calls (with progress) and reads through the SSE transport, with the server's static credential on every request", async () => {
    const client = await connect();
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(["legacy__add", "legacy__progress", "legacy__bump"]));
    expect(await client.callTool({ name: "legacy__add", arguments: { a: 20, b: 22 } })).toMatchObject({
      content: [{ type: "text", text: "42" }],
    });
    const progress: number[] = [];
    const result = await client.callTool({ name: "legacy__progress", arguments: { steps: 2 } }, undefined, {
      onprogress: (update) => void progress.push(update.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "done in 2 steps" }]);
    expect(progress[0]).toBe(1);
    expect((await client.getPrompt({ name: "legacy__greet", arguments: { color: "red" } })).messages[0]?.content).toMatchObject({
      text: "Say hello in red",
    });
    expect((await client.readResource({ uri: "legacy__fixture://readme" })).contents[0]).toMatchObject({
      uri: "legacy__fixture://readme",
      text: "readme of legacy",
    });
    // The GET that opens the event stream and every POST to /messages carried the gateway's secret, never the client key.
    expect(legacy.requests.map((request) => request.method)).toEqual(expect.arrayContaining(["GET", "POST"]));
    for (const request of legacy.requests) expect(request.authorization).toBe("Bearer legacy-secret");
  });

  it("its list change, resource update and log message reach the client's GET stream", async () => {
    const client = await connect();
    let listChanged = 0;
    const updated: string[] = [];
    const logged: Array<string | undefined> = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanged++);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => void updated.push(notification.params.uri));
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logged.push(notification.params.logger));
    await client.callTool({ name: "legacy__add_tool", arguments: { name: "late" } });
    await eventually(() => listChanged > 0);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("legacy__late");
    await client.subscribeResource({ uri: "legacy__fixture://counter" });
    await client.callTool({ name: "legacy__bump", arguments: {} });
    await eventually(() => updated.length > 0);
    expect(updated).toEqual(["legacy__fixture://counter"]);
    await client.setLoggingLevel("info");
    await client.callTool({ name: "legacy__log", arguments: { message: "hello from legacy" } });
    await eventually(() => logged.length > 0);
    expect(logged).toEqual(["legacy"]);
  });
});
