import type { Governance } from "@conduit-ai/governance";
import type { McpGateway } from "@conduit-ai/mcp-gateway";
import { type HttpFixture, startHttpFixture } from "@conduit-ai/mcp-gateway/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  connectClient,
  eventually,
  everythingStdio,
  gatewayOf,
  memoryGovernance,
  mintKey,
  stdioFixture,
} from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// The MCP gateway as the official SDK client sees it, on every adapter: upstreams over stdio
// (the SDK-made fixture, server-everything) and Streamable HTTP, one endpoint, namespaced names.
forEachAdapter("mcp gateway", ({ start }) => {
  let web: HttpFixture;
  let governance: Governance;
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  beforeEach(async () => {
    web = await startHttpFixture({ name: "web" });
    governance = await memoryGovernance();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await governance.close();
    await web.close();
  });

  async function serve(options: { requestTimeoutMs?: number; local?: ReturnType<typeof stdioFixture>; everything?: boolean } = {}) {
    const local = options.local ?? stdioFixture();
    const gateway = gatewayOf(
      {
        servers: { local: local.config, web: { url: web.url }, ...(options.everything ? { everything: everythingStdio } : {}) },
        gate: governance.gate,
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      },
      gateways,
    );
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        governance.install(adapter);
        gateway.install(adapter);
      },
    });
    const connect = async (key: string) => {
      const connected = await connectClient(server.url("/mcp"), key);
      clients.push(connected.client);
      return connected;
    };
    return { server, gateway, local, connect, mint: (key: Record<string, unknown>, team?: Record<string, unknown>) => mintKey(server.url(""), key, team) };
  }

  it("lists every server's tools namespaced and calls them over stdio, Streamable HTTP and server-everything", async () => {
    const { connect, mint } = await serve({ everything: true });
    const { client } = await connect(await mint({ name: "agent" }));
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["local__add", "web__add", "local__slow", "everything__echo", "everything__get-sum"]));
    expect(names.every((name) => /^(local|web|everything)__/.test(name))).toBe(true);
    expect(await client.callTool({ name: "local__add", arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: "text", text: "5" }] });
    expect(await client.callTool({ name: "web__add", arguments: { a: 4, b: 5 } })).toMatchObject({ content: [{ type: "text", text: "9" }] });
    const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "through the gateway" } });
    expect(JSON.stringify(echoed.content)).toContain("through the gateway");
    expect(client.getServerVersion()).toMatchObject({ name: "conduit-mcp-gateway" });
  });
});
