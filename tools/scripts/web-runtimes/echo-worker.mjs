// The module `web-runtimes-check.mjs` bundles and serves on Bun, Deno and workerd: Conduit's fetch
// handler, as a user's Worker exports it, over the smallest Runtime that runs anywhere (it echoes).
import { createFetchHandler } from "@conduit-ai/adapter-hono/fetch";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const textOf = (request) => request.input?.text ?? "";
const unknown = (what) => async (name) => {
  throw new Error(`no ${what} ${name}`);
};

const echoRuntime = {
  generate: async (request) => ({
    content: `echo: ${textOf(request)}`,
    provider: "echo",
    model: "echo",
    usage,
    toolCalls: [],
    toolResults: [],
    finishReason: "stop",
  }),
  async *stream(request) {
    yield { type: "text-start", id: "t", timestamp: Date.now(), data: {} };
    yield { type: "text-delta", id: "t", timestamp: Date.now(), data: { delta: textOf(request) } };
    yield { type: "text-end", id: "t", timestamp: Date.now(), data: {} };
    yield { type: "finish", timestamp: Date.now(), data: { reason: "stop" } };
  },
  embed: async () => ({ embedding: [1], provider: "echo", model: "echo", dimension: 1 }),
  embedMany: async (request) => ({
    embeddings: request.texts.map(() => [1]),
    provider: "echo",
    model: "echo",
    count: request.texts.length,
    dimension: 1,
  }),
  listProviders: async () => [{ name: "echo", models: ["echo"], available: true, default: true }],
  tools: { list: () => [], search: () => [], get: () => undefined, execute: unknown("tool") },
  mcp: { list: async () => [], get: async () => undefined, listTools: async () => [], executeTool: unknown("MCP server") },
  memory: {
    listSessions: async () => [],
    getSession: async () => undefined,
    getMessages: async () => undefined,
    deleteSession: async () => false,
    clearSession: async () => false,
  },
  health: async () => ({ status: "ok", dependencies: {} }),
};

export default createFetchHandler({ runtime: echoRuntime, config: { logging: { enabled: false } } });
