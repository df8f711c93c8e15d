import type { DataStreamEvent } from "../contracts/stream-event.js";
import type { McpServerInfo, Runtime, RuntimeCallContext, SessionMessage, ToolInfo } from "../contracts/runtime.js";
import { ServerValidationError } from "../errors/server-errors.js";

/**
 * Test-only: the smallest `Runtime` honoring the contract, for the HTTP layer's
 * contract tests (no provider, no network). `calls` records every runtime call context.
 *
 * @example
 * const runtime = createTestRuntime();
 * createAllRoutes(runtime);
 */
export function createTestRuntime(): Runtime & { calls: RuntimeCallContext[]; sessions: Map<string, SessionMessage[]> } {
  const calls: RuntimeCallContext[] = [];
  const sessions = new Map<string, SessionMessage[]>([
    [
      "s1",
      Array.from({ length: 5 }, (_, index) => ({
        role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
        content: `message ${index}`,
        timestamp: new Date(0).toISOString(),
      })),
    ],
  ]);
  const tools: ToolInfo[] = [
    { name: "add", description: "Adds numbers", inputSchema: { type: "object" }, source: "builtin" },
    { name: "clock", description: "Current time", inputSchema: { type: "object" }, source: "builtin" },
  ];
  const servers: McpServerInfo[] = [
    { name: "up", status: "connected", transport: "stdio", toolCount: 1, lastError: null },
    { name: "down", status: "error", transport: "http", toolCount: 0, lastError: "ECONNREFUSED" },
  ];
  const sessionInfo = (id: string) => {
    const messages = sessions.get(id);
    return messages && { id, messageCount: messages.length, createdAt: new Date(0).toISOString(), updatedAt: new Date(0).toISOString() };
  };
  return {
    calls,
    sessions,
    async generate(request, context = {}) {
      calls.push(context);
      const text = request.input?.text ?? request.prompt ?? "";
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      return {
        content: `echo: ${text}`,
        provider: "test",
        model: request.model ?? "m1",
        usage,
        toolCalls: [],
        toolResults: [],
        finishReason: "stop",
      };
    },
    async *stream(request, context = {}): AsyncGenerator<DataStreamEvent> {
      calls.push(context);
      yield { type: "text-start", id: "t1", timestamp: 1, data: {} };
      yield { type: "text-delta", id: "t1", timestamp: 2, data: { delta: request.input?.text ?? request.prompt ?? "" } };
      yield { type: "text-end", id: "t1", timestamp: 3, data: {} };
      yield { type: "finish", timestamp: 4, data: { reason: "stop" } };
    },
    embed: async (request) => ({ embedding: [request.text.length, 1], provider: "test", model: "e1", dimension: 2 }),
    embedMany: async (request) => ({
      embeddings: request.texts.map((text) => [text.length, 1]),
      provider: "test",
      model: "e1",
      count: request.texts.length,
      dimension: 2,
    }),
    listProviders: async () => [{ name: "test", models: ["m1"], available: true, default: true }],
    tools: {
      list: () => tools,
      search: (query) => tools.filter((tool) => query.q === undefined || tool.name.includes(query.q)).slice(0, query.limit ?? 100),
      get: (name) => tools.find((tool) => tool.name === name),
      async execute(name, args, options = {}) {
        calls.push(options);
        if (typeof args.a !== "number")
          throw new ServerValidationError("Invalid arguments", [{ field: "arguments.a", message: "Expected number" }]);
        return { name, result: (args.a as number) + Number(args.b ?? 0), duration: 1 };
      },
    },
    mcp: {
      list: async () => servers,
      get: async (name) => servers.find((server) => server.name === name),
      listTools: async () => [{ ...tools[0], source: "mcp:up" } as ToolInfo],
      executeTool: async (_server, tool, args) => ({ name: tool, result: args, duration: 0 }),
    },
    memory: {
      listSessions: async () => [...sessions.keys()].map((id) => sessionInfo(id) as NonNullable<ReturnType<typeof sessionInfo>>),
      getSession: async (id) => sessionInfo(id),
      async getMessages(id, page = {}) {
        const messages = sessions.get(id);
        if (!messages) return undefined;
        const limit = page.limit ?? 50;
        const offset = page.offset ?? 0;
        return { sessionId: id, messages: messages.slice(offset, offset + limit), total: messages.length, limit, offset };
      },
      deleteSession: async (id) => sessions.delete(id),
      async clearSession(id) {
        if (!sessions.has(id)) return false;
        sessions.set(id, []);
        return true;
      },
    },
    health: async () => ({ status: "ok", dependencies: {} }),
  };
}
