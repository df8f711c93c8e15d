import { type McpHttpFixture, startMcpHttpFixture } from "@conduit-ai/fakes";
import { createServer } from "node:net";
import { type McpAuthorizationServer, startMcpAuthorizationServer } from "@conduit-ai/auth-providers/testing";
import { type McpGateway, exchangerFromAuthProvider, oauthFromAuthProvider } from "@conduit-ai/mcp-gateway";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, expect, it } from "vitest";
import { connectClient, gatewayOf } from "./fixtures/mcp-gateway-kit.js";
import { forEachAdapter } from "./harness.js";

// OAuth 2.1 as the MCP authorization spec asks, against a real authorization server
// (oidc-provider): the SDK client discovers it through the protected-resource metadata, gets a
// token for the gateway's URL (RFC 8707) and calls; upstreams get the caller's token forwarded,
// or a token exchanged for it at the same server (RFC 8693) — never the gateway's client key.
const UPSTREAM_AUDIENCE = "https://upstream.example/mcp";
const CLIENT_KEY = "mcp-oauth-suite-client-key-0123456789";

/** A free loopback port: the resource URL (the tokens' audience) must be known before the server starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

forEachAdapter("mcp gateway OAuth", ({ start }) => {
  let authorization: McpAuthorizationServer;
  let exchanged: McpHttpFixture;
  let forwarded: McpHttpFixture;
  const gateways: McpGateway[] = [];
  const clients: Client[] = [];
  beforeEach(async () => {
    authorization = await startMcpAuthorizationServer();
    // Takes only a token the authorization server issued for it by exchange.
    exchanged = await startMcpHttpFixture({
      name: "exchanged",
      authorize: async (header) =>
        header?.startsWith("Bearer ") === true && (await authorization.verify(header.slice(7), UPSTREAM_AUDIENCE)) !== undefined,
    });
    forwarded = await startMcpHttpFixture({ name: "forwarded", authorize: (header) => header?.startsWith("Bearer ") === true });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const gateway of gateways.splice(0)) await gateway.close();
    await Promise.all([authorization.close(), exchanged.close(), forwarded.close()]);
  });

  async function serve() {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const corp = {
      type: "jwt",
      issuer: authorization.issuer,
      clientId: authorization.gateway.id,
      clientSecret: authorization.gateway.secret,
    };
    const gateway = gatewayOf(
      {
        servers: {
          exchanged: { url: exchanged.url, auth: { mode: "exchange", provider: "corp", audience: UPSTREAM_AUDIENCE } },
          forwarded: { url: forwarded.url, auth: { mode: "forward" } },
        },
        clientKeys: [CLIENT_KEY],
        oauth: await oauthFromAuthProvider("corp", corp, resource),
        tokenExchangers: { corp: exchangerFromAuthProvider("corp", corp) },
      },
      gateways,
    );
    const server = await start({ config: { port }, setup: (adapter) => gateway.install(adapter) });
    return { server, resource };
  }

  it("the SDK client discovers the authorization server, gets a token for the gateway's URL and calls; exchange and forward upstream", async () => {
    const { server, resource } = await serve();
    const challenge = await fetch(server.url("/mcp"), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toBe(
      `Bearer realm="mcp", resource_metadata="http://127.0.0.1:${server.port}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = await (await fetch(server.url("/.well-known/oauth-protected-resource/mcp"))).json();
    expect(metadata).toMatchObject({ resource, authorization_servers: [authorization.issuer], bearer_methods_supported: ["header"] });
    expect(await (await fetch(server.url("/.well-known/oauth-protected-resource"))).json()).toEqual(metadata);

    const client = new Client({ name: "oauth-agent", version: "1.0.0" });
    clients.push(client);
    const authProvider = new ClientCredentialsProvider({
      clientId: authorization.agent.id,
      clientSecret: authorization.agent.secret,
      expectedIssuer: authorization.issuer,
    });
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider });
    await client.connect(transport).catch(async (error) => {
      // The SDK signals "authorized now, connect again" by throwing once after the token grant.
      if (!/Unauthorized/i.test(String(error))) throw error;
      await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    });
    const callerToken = authProvider.tokens()?.access_token as string;
    expect(await authorization.verify(callerToken, resource)).toBeDefined();
    const listed = await client.listTools();
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["exchanged__whoami", "forwarded__whoami"]));

    const viaExchange = await client.callTool({ name: "exchanged__whoami", arguments: {} });
    const exchangedHeader = (viaExchange.content as Array<{ text: string }>)[0]?.text as string;
    expect(exchangedHeader).toMatch(/^Bearer /);
    expect(exchangedHeader).not.toContain(callerToken);
    expect(authorization.exchanged.map((item) => `Bearer ${item.token}`)).toContain(exchangedHeader);
    expect(authorization.exchanged[0]).toMatchObject({ audience: UPSTREAM_AUDIENCE, actor: authorization.gateway.id });
    // Exchanged once per caller token and cached: a second call asks the authorization server nothing.
    await client.callTool({ name: "exchanged__whoami", arguments: {} });
    expect(authorization.exchanged).toHaveLength(1);

    const viaForward = await client.callTool({ name: "forwarded__whoami", arguments: {} });
    expect((viaForward.content as Array<{ text: string }>)[0]?.text).toBe(`Bearer ${callerToken}`);
  });

  it("a token for another resource is 401; a client key's calls never reach forward or exchange upstreams with a credential", async () => {
    const { server } = await serve();
    const otherToken = await (async () => {
      const response = await fetch(`${authorization.issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${authorization.agent.id}:${authorization.agent.secret}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource: "https://elsewhere.example/mcp" }).toString(),
      });
      return ((await response.json()) as { access_token: string }).access_token;
    })();
    const refused = await fetch(server.url("/mcp"), {
      method: "POST",
      headers: { authorization: `Bearer ${otherToken}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const { client } = await connectClient(server.url("/mcp"), CLIENT_KEY);
    clients.push(client);
    await expect(client.callTool({ name: "forwarded__whoami", arguments: {} })).rejects.toMatchObject({
      message: expect.stringContaining('MCP server "forwarded" needs the caller\'s own OAuth token'),
    });
    await expect(client.callTool({ name: "exchanged__whoami", arguments: {} })).rejects.toMatchObject({
      message: expect.stringContaining('MCP server "exchanged"'),
    });
    // Neither upstream ever saw the client key.
    for (const request of [...exchanged.requests, ...forwarded.requests]) expect(request.authorization).not.toContain(CLIENT_KEY);
  });
  it("static upstream credentials: the gateway's own secret reaches the server, a wrong one is a JSON-RPC error naming it", async () => {
    const locked = await startMcpHttpFixture({ name: "locked", authorize: (header) => header === "Bearer upstream-secret-0123" });
    try {
      const gateway = gatewayOf(
        {
          servers: {
            good: { url: locked.url, auth: { mode: "static", headers: { authorization: "Bearer upstream-secret-0123" } } },
            bad: { url: locked.url, auth: { mode: "static", headers: { authorization: "Bearer stale-secret" } } },
          },
          clientKeys: [CLIENT_KEY],
        },
        gateways,
      );
      const server = await start({ setup: (adapter) => gateway.install(adapter) });
      const { client } = await connectClient(server.url("/mcp"), CLIENT_KEY);
      clients.push(client);
      expect(await client.callTool({ name: "good__whoami", arguments: {} })).toMatchObject({
        content: [{ text: "Bearer upstream-secret-0123" }],
      });
      await expect(client.callTool({ name: "bad__whoami", arguments: {} })).rejects.toMatchObject({
        code: -32000,
        message: expect.stringContaining('MCP server "bad" refused the gateway\'s credentials'),
      });
      const listed = await client.listTools();
      expect(listed.tools.some((tool) => tool.name === "good__add")).toBe(true);
      expect(listed._meta?.["conduit/unavailable"]).toEqual([expect.objectContaining({ server: "bad" })]);
      for (const request of locked.requests) expect(request.authorization).not.toContain(CLIENT_KEY);
    } finally {
      await locked.close();
    }
  });
});
