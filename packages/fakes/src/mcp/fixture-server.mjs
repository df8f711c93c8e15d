// The MCP fixture server, made with the official SDK and served over stdio (fixture-stdio.mjs) or
// Streamable HTTP (http-fixture.ts): the tools of FIXTURE_TOOLS (ask_model / ask_user / list_roots ask
// the client mid-call), a prompt with argument completion, a static resource, a template, and a
// subscribable counter. Plain ESM, so that `node fixture-stdio.mjs` runs it without a TypeScript loader.
import { completable as sdkCompletable } from "@modelcontextprotocol/sdk/server/completable.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RootsListChangedNotificationSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const COLORS = ["red", "green", "blue", "black"];

/** The tools a fixture server offers when it starts (`add_tool` adds more at run time). */
export const FIXTURE_TOOLS = [
  ...["add", "echo", "fail", "slow", "progress", "delete_all", "whoami", "pid", "shout", "add_tool", "bump", "log"],
  // The tools that ask the client mid-call (sampling, elicitation, roots) and tell what it declared.
  ...["ask_model", "ask_user", "list_roots", "client_capabilities", "roots_changed"],
];

/**
 * One server instance (one per session: the SDK's server speaks to one client). `seen` collects
 * what a test reads back: `cancelled` request ids, and the trace context of each `shout` call.
 */
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
  server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("fail", { description: "Always reports an error", inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: "text", text: "deliberate failure" }],
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
    {
      description: "Reports progress steps (each with the message, when given), then answers",
      inputSchema: { steps: z.number(), message: z.string().optional() },
    },
    async ({ steps, message }, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: steps, ...(message === undefined ? {} : { message }) },
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
  server.registerTool("pid", { description: "Process id of this server", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  server.registerTool("shout", { description: "Upper-cases a text", inputSchema: { text: z.string() } }, async ({ text }, extra) => {
    const header = extra.requestInfo?.headers?.traceparent;
    seen?.traceContexts?.push({
      headerTraceparent: Array.isArray(header) ? header[0] : header,
      metaTraceparent: extra._meta?.traceparent,
    });
    return { content: [{ type: "text", text: text.toUpperCase() }] };
  });
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
  server.registerTool(
    "log",
    { description: "Logs the message at info", inputSchema: { message: z.string() } },
    async ({ message }, extra) => {
      await server.server.sendLoggingMessage({ level: "info", data: message }, extra.sessionId);
      return { content: [{ type: "text", text: "logged" }] };
    },
  );
  registerClientRequestTools(server);
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
/**
 * Tools that ask the client mid-call, as a server does (each request related to the call, so over
 * Streamable HTTP it travels on the call's stream): sampling, elicitation, roots; and what the
 * client declared and how often its roots changed.
 */
function registerClientRequestTools(server) {
  let rootsChanged = 0;
  const related = (extra) => ({ relatedRequestId: extra.requestId });
  server.registerTool(
    "ask_model",
    { description: "Asks the client's model", inputSchema: { question: z.string() } },
    async ({ question }, extra) => {
      const result = await server.server.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens: 64 },
        related(extra),
      );
      return { content: [{ type: "text", text: `${result.model} said: ${result.content.text}` }] };
    },
  );
  server.registerTool(
    "ask_user",
    { description: "Asks the client's user for a name", inputSchema: { question: z.string() } },
    async ({ question }, extra) => {
      const schema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
      const result = await server.server.elicitInput({ message: question, requestedSchema: schema }, related(extra));
      return { content: [{ type: "text", text: result.action === "accept" ? `hello ${result.content?.name}` : result.action }] };
    },
  );
  server.registerTool("list_roots", { description: "The client's roots", inputSchema: {} }, async (_args, extra) => {
    const { roots } = await server.server.listRoots(undefined, related(extra));
    return { content: [{ type: "text", text: roots.map((root) => root.uri).join(" ") }] };
  });
  server.registerTool("client_capabilities", { description: "What the client declared", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: JSON.stringify(server.server.getClientCapabilities() ?? {}) }],
  }));
  server.registerTool("roots_changed", { description: "Roots list changes received", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: String(rootsChanged) }],
  }));
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    rootsChanged++;
  });
}
