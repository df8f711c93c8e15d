// Test-only MCP server over stdio, written with the official SDK (run by `node`).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "fixture-stdio", version: "1.0.0" });
server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: "text", text: String(a + b) }],
}));
server.registerTool("pid", { description: "Process id of this server", inputSchema: {} }, async () => ({
  content: [{ type: "text", text: String(process.pid) }],
}));
await server.connect(new StdioServerTransport());
