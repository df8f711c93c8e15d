import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** Test-only: the tools both fixture MCP servers offer. */
export function registerFixtureTools(server: McpServer): void {
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("fail", { description: "Always reports an error", inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: "text", text: "deliberate failure" }],
  }));
}
