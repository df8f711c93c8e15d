import { describe, expect, it } from "vitest";
import { createTestApp } from "../testing/test-kit.js";
import { createAllRoutes } from "./all-routes.js";
import { createTestRuntime } from "../testing/test-runtime.js";

type Envelope<T = Record<string, unknown>> = { data: T; metadata: { requestId: string } };
type ErrorBody = { error: { code: string; message: string; details?: { errors?: Array<{ field: string }> } } };

function appWith(runtime = createTestRuntime(), options: Parameters<typeof createAllRoutes>[2] = {}) {
  const app = createTestApp({ config: { enableMetrics: false, logging: { enabled: false } } });
  for (const group of createAllRoutes(runtime, "/api", options)) app.adapter.registerRouteGroup(group);
  return { ...app, runtime };
}

const post = (url: string, body: unknown) => ({ method: "POST", url, body: JSON.stringify(body) });

describe("agent routes", () => {
  it("generates with either call style and hands the request id and abort signal to the runtime", async () => {
    const { request, runtime } = appWith();
    for (const url of ["/api/agent/execute", "/api/agent/generate"]) {
      const response = await request({ ...post(url, { input: { text: "hi" } }), headers: { "x-request-id": "abc-1" } });
      expect(response.status).toBe(200);
      expect(response.json<Envelope>().data).toMatchObject({ content: "echo: hi", provider: "test", finishReason: "stop" });
    }
    const legacy = await request(post("/api/agent/execute", { prompt: "old" }));
    expect(legacy.json<Envelope>().data.content).toBe("echo: old");
    expect(runtime.calls[0]?.requestId).toBe("abc-1");
    expect(runtime.calls[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("answers 400 listing every failing field", async () => {
    const { request } = appWith();
    const response = await request(post("/api/agent/execute", { temperature: 3, maxTokens: -1, tools: 5 }));
    expect(response.status).toBe(400);
    const fields = response.json<ErrorBody>().error.details?.errors?.map((issue) => issue.field) ?? [];
    expect(fields).toEqual(expect.arrayContaining(["body.temperature", "body.maxTokens", "body.tools"]));
    const missing = await request(post("/api/agent/execute", {}));
    expect(missing.json<ErrorBody>().error.details?.errors?.map((issue) => issue.field)).toContain("body.input");
  });

  it("streams DataStreamEvents as SSE and NDJSON", async () => {
    const { request } = appWith();
    const sse = await request(post("/api/agent/stream", { input: { text: "yo" } }));
    expect(sse.headers["content-type"]).toContain("text/event-stream");
    expect(sse.text).toContain("event: text-delta\nid: t1\n");
    expect(sse.text.trim().split("\n\n").at(-1)).toContain("event: finish");
    const ndjson = await request({ ...post("/api/agent/stream?format=ndjson", { input: { text: "yo" } }) });
    const events = ndjson.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.map((event) => event.type)).toEqual(["text-start", "text-delta", "text-end", "finish"]);
  });

  it("lists providers and embeds with a bounded batch", async () => {
    const { request } = appWith();
    expect((await request({ url: "/api/agent/providers" })).json<Envelope>().data).toMatchObject({ total: 1 });
    expect((await request(post("/api/agent/embed", { text: "abc" }))).json<Envelope>().data).toMatchObject({
      embedding: [3, 1],
      dimension: 2,
    });
    const many = await request(post("/api/agent/embed-many", { texts: ["a", "bb"] }));
    expect(many.json<Envelope>().data).toMatchObject({
      count: 2,
      embeddings: [
        [1, 1],
        [2, 1],
      ],
    });
    const tooMany = await request(post("/api/agent/embed-many", { texts: Array.from({ length: 101 }, () => "x") }));
    expect(tooMany.status).toBe(400);
    expect((await request(post("/api/agent/embed-many", { texts: [] }))).status).toBe(400);
  });

  it("answers 503 RUNTIME_UNAVAILABLE when the server has no runtime", async () => {
    const app = createTestApp({ config: { enableMetrics: false, logging: { enabled: false } } });
    for (const group of createAllRoutes(undefined)) app.adapter.registerRouteGroup(group);
    const response = await app.request(post("/api/agent/execute", { input: { text: "x" } }));
    expect(response.status).toBe(503);
    expect(response.json<ErrorBody>().error.code).toBe("RUNTIME_UNAVAILABLE");
  });
});

describe("tool routes", () => {
  it("lists, searches and describes tools; unknown → 404 TOOL_NOT_FOUND", async () => {
    const { request } = appWith();
    expect((await request({ url: "/api/tools" })).json<Envelope>().data).toMatchObject({ total: 2 });
    const search = await request({ url: "/api/tools/search?q=cl&limit=5" });
    expect(search.json<Envelope>().data).toMatchObject({ total: 1, query: { q: "cl", limit: 5 } });
    expect((await request({ url: "/api/tools/search?limit=0" })).status).toBe(400);
    expect((await request({ url: "/api/tools/add" })).json<Envelope>().data).toMatchObject({ name: "add", source: "builtin" });
    const missing = await request({ url: "/api/tools/nope" });
    expect(missing.status).toBe(404);
    expect(missing.json<ErrorBody>().error.code).toBe("TOOL_NOT_FOUND");
  });

  it("executes by path and by body; unknown tool → 404; bad arguments → 400 from the runtime", async () => {
    const { request, runtime } = appWith();
    const byPath = await request(post("/api/tools/add/execute", { arguments: { a: 2, b: 3 }, confirmed: true }));
    expect(byPath.json<Envelope>().data).toEqual({ name: "add", result: 5, duration: 1 });
    expect((runtime.calls.at(-1) as { confirmed?: boolean }).confirmed).toBe(true);
    const byBody = await request(post("/api/tools/execute", { name: "add", arguments: { a: 1 } }));
    expect(byBody.json<Envelope>().data.result).toBe(1);
    const unknown = await request(post("/api/tools/execute", { name: "nope" }));
    expect([unknown.status, unknown.json<ErrorBody>().error.code]).toEqual([404, "TOOL_NOT_FOUND"]);
    const invalid = await request(post("/api/tools/add/execute", { arguments: { a: "x" } }));
    expect(invalid.status).toBe(400);
    expect(invalid.json<ErrorBody>().error.details?.errors?.[0]?.field).toBe("arguments.a");
    const noName = await request(post("/api/tools/execute", { arguments: [] }));
    expect(noName.json<ErrorBody>().error.details?.errors?.map((issue) => issue.field)).toEqual(["body.name", "body.arguments"]);
  });
});

describe("mcp routes", () => {
  it("lists servers, details with tools, 404 unknown, 503 unavailable", async () => {
    const { request } = appWith();
    expect((await request({ url: "/api/mcp/servers" })).json<Envelope>().data).toMatchObject({ total: 2 });
    const detail = (await request({ url: "/api/mcp/servers/up" })).json<Envelope<{ tools: unknown[]; status: string }>>().data;
    expect([detail.status, detail.tools.length]).toEqual(["connected", 1]);
    expect((await request({ url: "/api/mcp/servers/down" })).json<Envelope>().data).toMatchObject({ status: "error", tools: [] });
    const unknown = await request({ url: "/api/mcp/servers/zzz" });
    expect([unknown.status, unknown.json<ErrorBody>().error.code]).toEqual([404, "MCP_SERVER_NOT_FOUND"]);
    const down = await request({ url: "/api/mcp/servers/down/tools" });
    expect([down.status, down.json<ErrorBody>().error.code]).toEqual([503, "MCP_SERVER_UNAVAILABLE"]);
    expect((await request({ url: "/api/mcp/servers/up/tools" })).json<Envelope>().data).toMatchObject({ server: "up", total: 1 });
    const executed = await request(post("/api/mcp/servers/up/tools/echo/execute", { arguments: { x: 1 } }));
    expect(executed.json<Envelope>().data).toEqual({ name: "echo", result: { x: 1 }, duration: 0 });
    expect((await request(post("/api/mcp/servers/down/tools/echo/execute", {}))).status).toBe(503);
  });
});

describe("memory routes", () => {
  it("lists, paginates, clears and deletes sessions; unknown → 404 SESSION_NOT_FOUND", async () => {
    const { request } = appWith();
    expect((await request({ url: "/api/memory/sessions" })).json<Envelope>().data).toMatchObject({ total: 1 });
    expect((await request({ url: "/api/memory/sessions/s1" })).json<Envelope>().data).toMatchObject({ id: "s1", messageCount: 5 });
    const page = (await request({ url: "/api/memory/sessions/s1/messages?limit=2&offset=1" })).json<
      Envelope<{ messages: Array<{ content: string }> }>
    >();
    expect(page.data).toMatchObject({ sessionId: "s1", total: 5, limit: 2, offset: 1 });
    expect(page.data.messages.map((message) => message.content)).toEqual(["message 1", "message 2"]);
    expect((await request({ url: "/api/memory/sessions/s1/messages" })).json<Envelope>().data).toMatchObject({ limit: 50, offset: 0 });
    const badPage = await request({ url: "/api/memory/sessions/s1/messages?limit=500&offset=-1" });
    expect(badPage.json<ErrorBody>().error.details?.errors?.map((issue) => issue.field)).toEqual(["query.limit", "query.offset"]);
    expect((await request(post("/api/memory/sessions/s1/clear", {}))).json<Envelope>().data).toEqual({ sessionId: "s1", cleared: true });
    expect((await request({ url: "/api/memory/sessions/s1" })).json<Envelope>().data).toMatchObject({ messageCount: 0 });
    expect((await request({ method: "DELETE", url: "/api/memory/sessions/s1" })).json<Envelope>().data).toEqual({
      id: "s1",
      deleted: true,
    });
    for (const missing of [
      { url: "/api/memory/sessions/s1" },
      { method: "DELETE", url: "/api/memory/sessions/s1" },
      post("/api/memory/sessions/s1/clear", {}),
    ]) {
      const response = await request(missing);
      expect([response.status, response.json<ErrorBody>().error.code]).toEqual([404, "SESSION_NOT_FOUND"]);
    }
  });
});
