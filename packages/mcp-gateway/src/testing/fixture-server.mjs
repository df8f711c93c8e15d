// A test MCP server made with the official SDK, served over stdio (fixture-stdio.mjs) or
// Streamable HTTP (http-fixture.ts): tools (add, slow, progress, delete_all, add_tool, bump),
// a prompt with argument completion, a static resource, a template, and a subscribable counter.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const COLORS = ["red", "green", "blue", "black"];

/** One server instance (one per session: the SDK's server speaks to one client). */
export function createFixtureServer({ name = "fixture", seen } = {}) {
  const server = new McpServer(
    { name, version: "1.0.0" },
    { capabilities: { resources: { subscribe: true, listChanged: true }, logging: {} } },
  );
  let counter = 0;
  const subscribed = new Set();
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("slow", { description: "Answers after ms milliseconds", inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        seen?.cancelled?.push(String(extra.requestId));
        reject(new Error("cancelled"));
      });
    });
    return { content: [{ type: "text", text: `waited ${ms}` }] };
  });
  server.registerTool(
    "progress",
    { description: "Reports progress steps, then answers", inputSchema: { steps: z.number() } },
    async ({ steps }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps },
          });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { content: [{ type: "text", text: `done in ${steps} steps` }] };
    },
  );
  server.registerTool("delete_all", { description: "Deletes everything (tests refuse it)", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "deleted everything" }],
  }));
  server.registerTool(
    "whoami",
    { description: "The Authorization header this server received", inputSchema: {} },
    async (_args, extra) => ({
      content: [{ type: "text", text: String(extra.requestInfo?.headers?.authorization ?? "none") }],
    }),
  );
  server.registerTool(
    "add_tool",
    { description: "Registers a tool named by the argument", inputSchema: { name: z.string() } },
    async ({ name: tool }) => {
      server.registerTool(tool, { description: "Added at run time", inputSchema: {} }, async () => ({
        content: [{ type: "text", text: tool }],
      }));
      return { content: [{ type: "text", text: `added ${tool}` }] };
    },
  );
  server.registerTool("bump", { description: "Increments the counter resource", inputSchema: {} }, async () => {
    counter++;
    if (subscribed.has("fixture://counter")) await server.server.sendResourceUpdated({ uri: "fixture://counter" });
    return { content: [{ type: "text", text: String(counter) }] };
  });
  server.registerPrompt(
    "greet",
    { description: "Greets someone in a color", argsSchema: { color: completable(z.string()) } },
    ({ color }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello in ${color}` } }] }),
  );
  server.registerResource("readme", "fixture://readme", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: `readme of ${name}` }],
  }));
  server.registerResource("counter", "fixture://counter", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: String(counter) }],
  }));
  server.registerResource(
    "item",
    new ResourceTemplate("fixture://items/{id}", {
      list: undefined,
      complete: { id: (value) => ["1", "2", "10", "20"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${id}` }] }),
  );
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return server;
}

/** `completable` from the SDK, with the fixture's colors. */
function completable(schema) {
  return sdkCompletable(schema, (value) => COLORS.filter((color) => color.startsWith(value ?? "")));
}
import { completable as sdkCompletable } from "@modelcontextprotocol/sdk/server/completable.js";
