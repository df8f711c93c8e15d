import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerFixtureTools } from "./mcp-tools.js";

export interface FixtureHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Test-only: a stateless Streamable HTTP MCP server on loopback (a fresh server and transport per request, as the SDK recommends). */
export async function startMcpHttpServer(port = 0): Promise<FixtureHttpServer> {
  const http: Server = createServer(async (request, response) => {
    const server = new McpServer({ name: "fixture-http", version: "1.0.0" });
    registerFixtureTools(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const actual = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
