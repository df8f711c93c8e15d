import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** What the MCP server saw of one `tools/call`: the trace context in its HTTP headers and in `_meta`. */
export interface SeenToolCall {
  headerTraceparent: string | undefined;
  metaTraceparent: string | undefined;
}

export interface McpTraceServer {
  url: string;
  calls: SeenToolCall[];
  close(): Promise<void>;
}

/**
 * An MCP server built with the official SDK (`McpServer` over Streamable HTTP, stateless) on
 * loopback, with one tool `shout` that records the trace context each call arrived with.
 *
 * @example
 * const mcp = await startMcpTraceServer();
 * createRuntime({ mcpServers: { demo: { url: mcp.url } } });
 */
export async function startMcpTraceServer(): Promise<McpTraceServer> {
  const calls: SeenToolCall[] = [];
  const http: Server = createServer(async (request, response) => {
    const server = new McpServer({ name: "trace-fixture", version: "1.0.0" });
    server.registerTool("shout", { description: "Upper-cases a text", inputSchema: { text: z.string() } }, async ({ text }, extra) => {
      const header = extra.requestInfo?.headers.traceparent;
      calls.push({
        headerTraceparent: Array.isArray(header) ? header[0] : header,
        metaTraceparent: (extra._meta as { traceparent?: string } | undefined)?.traceparent,
      });
      return { content: [{ type: "text", text: text.toUpperCase() }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
