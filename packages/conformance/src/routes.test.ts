import {
  type BaseServerAdapter,
  type MiddlewareDefinition,
  createAllRoutes,
  defineRoute,
  registerAllRoutes,
} from "@conduit-ai/server-core";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { expect, it } from "vitest";
import { z } from "zod";
import { createAuthFromConfig } from "@conduit-ai/auth";
import { createRuntime } from "@conduit-ai/runtime";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { forEachAdapter, type RunningServer } from "./harness.js";

type Envelope = { data: Record<string, unknown>; metadata: { requestId: string; timestamp: string; duration: number } };
type ErrorEnvelope = { error: { code: string; category: string; requestId: string; details?: { errors?: Array<{ field: string }> } } };

/** Pretends to be an auth middleware, so the test sees the user reach the runtime. */
const fakeUser: MiddlewareDefinition = {
  name: "fake-user",
  handler: async (ctx, next) => {
    if (ctx.header("x-test-user")) ctx.user = { id: ctx.header("x-test-user") as string, roles: [], permissions: [] };
    await next();
  },
};

function setup(runtime = createContractRuntime()) {
  return {
    runtime,
    options: {
      runtime,
      config: { enableSwagger: true, rateLimit: { enabled: false } },
      setup: (adapter: BaseServerAdapter<unknown>) => {
        adapter.registerMiddleware(fakeUser);
        registerAllRoutes(adapter);
        adapter.registerRoute(
          defineRoute({
            method: "GET",
            path: "/custom/:thing",
            tags: ["custom"],
            schema: { params: z.object({ thing: z.string() }) },
            handler: (ctx) => ({ thing: ctx.params.thing }),
          }),
        );
      },
    },
  };
}

async function call(server: RunningServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(server.url(path), {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Envelope & ErrorEnvelope };
}

forEachAdapter("route groups", ({ start }) => {
  it("answers every route with the envelope and the decided shapes", async () => {
    const { runtime, options } = setup();
    const server = await start(options);
    const cases: Array<[string, string, unknown, number, Record<string, unknown>]> = [
      [
        "POST",
        "/api/agent/execute",
        { input: { text: "hi there" }, sessionId: "s1" },
        200,
        { content: "echo: hi there", provider: "test", model: "echo-1", toolCalls: [], finishReason: "stop" },
      ],
      [
        "POST",
        "/api/agent/generate",
        { prompt: "legacy", model: "echo-1" },
        200,
        { content: "echo: legacy", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
      ],
      [
        "GET",
        "/api/agent/providers",
        undefined,
        200,
        { total: 1, providers: [{ name: "test", models: ["echo-1", "hash-8"], available: true, default: true }] },
      ],
      ["POST", "/api/agent/embed", { text: "abc" }, 200, { provider: "test", model: "hash-8", dimension: 8 }],
      ["POST", "/api/agent/embed-many", { texts: ["a", "b", "c"] }, 200, { count: 3, dimension: 8 }],
      ["GET", "/api/tools", undefined, 200, { total: 2 }],
      ["GET", "/api/tools/search?q=add&limit=1", undefined, 200, { total: 1, query: { q: "add", limit: 1 } }],
      ["GET", "/api/tools/add", undefined, 200, { name: "add", source: "builtin" }],
      ["POST", "/api/tools/add/execute", { arguments: { a: 2, b: 40 } }, 200, { name: "add", result: 42 }],
      ["POST", "/api/tools/execute", { name: "wipe", confirmed: true }, 200, { name: "wipe", result: { wiped: true } }],
      ["GET", "/api/mcp/servers", undefined, 200, { total: 2 }],
      ["GET", "/api/mcp/servers/alpha", undefined, 200, { name: "alpha", status: "connected", transport: "stdio", lastError: null }],
      ["GET", "/api/mcp/servers/alpha/tools", undefined, 200, { server: "alpha", total: 1 }],
      ["POST", "/api/mcp/servers/alpha/tools/echo/execute", { arguments: { say: "x" } }, 200, { name: "echo", result: { say: "x" } }],
      ["GET", "/api/memory/sessions", undefined, 200, { total: 1 }],
      ["GET", "/api/memory/sessions/s1", undefined, 200, { id: "s1", messageCount: 2 }],
      ["GET", "/api/memory/sessions/s1/messages?limit=1&offset=1", undefined, 200, { sessionId: "s1", total: 2, limit: 1, offset: 1 }],
      ["POST", "/api/memory/sessions/s1/clear", {}, 200, { sessionId: "s1", cleared: true }],
      ["DELETE", "/api/memory/sessions/s1", undefined, 200, { id: "s1", deleted: true }],
      ["GET", "/api/health", undefined, 200, { status: "ok" }],
      ["GET", "/api/health/ready", undefined, 200, { status: "ready" }],
      ["GET", "/api/custom/widget", undefined, 200, { thing: "widget" }],
    ];
    for (const [method, path, body, status, data] of cases) {
      const response = await call(server, method, path, body, { "x-test-user": "alice" });
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.json.data, `${method} ${path}`).toMatchObject(data);
      expect(response.json.metadata.requestId).toBe(response.headers.get("x-request-id"));
    }
    const messages = (await call(server, "GET", "/api/memory/sessions")).json.data;
    expect(messages).toEqual({ sessions: [], total: 0 });
    // The HTTP layer hands the caller and the request to the runtime.
    expect(runtime.contexts[0]?.user?.id).toBe("alice");
    expect(runtime.contexts[0]?.requestId).toMatch(/^req-/);
    expect(runtime.contexts[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("answers 400 listing every failing field, and 404/503 with the resource codes", async () => {
    const server = await start(setup().options);
    const invalid = await call(server, "POST", "/api/agent/execute", { temperature: 9, maxTokens: -1 });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.code).toBe("VALIDATION_ERROR");
    expect(invalid.json.error.details?.errors?.map((issue) => issue.field).sort()).toEqual([
      "body.input",
      "body.maxTokens",
      "body.temperature",
    ]);
    const batch = await call(server, "POST", "/api/agent/embed-many", { texts: Array.from({ length: 101 }, () => "x") });
    expect(batch.json.error.details?.errors?.map((issue) => issue.field)).toEqual(["body.texts"]);
    const toolArguments = await call(server, "POST", "/api/tools/add/execute", { arguments: { a: "two" } });
    expect(toolArguments.status).toBe(400);
    expect(toolArguments.json.error.details?.errors?.map((issue) => issue.field)).toEqual(["arguments.a", "arguments.b"]);
    const expectations: Array<[string, string, unknown, number, string]> = [
      ["GET", "/api/tools/nope", undefined, 404, "TOOL_NOT_FOUND"],
      ["POST", "/api/tools/nope/execute", {}, 404, "TOOL_NOT_FOUND"],
      ["POST", "/api/tools/execute", { name: "nope" }, 404, "TOOL_NOT_FOUND"],
      ["POST", "/api/tools/wipe/execute", {}, 428, "USER_CONFIRMATION_REQUIRED"],
      ["GET", "/api/mcp/servers/zeta", undefined, 404, "MCP_SERVER_NOT_FOUND"],
      ["GET", "/api/mcp/servers/beta/tools", undefined, 503, "MCP_SERVER_UNAVAILABLE"],
      ["GET", "/api/memory/sessions/ghost", undefined, 404, "SESSION_NOT_FOUND"],
      ["GET", "/api/memory/sessions/ghost/messages", undefined, 404, "SESSION_NOT_FOUND"],
      ["POST", "/api/agent/execute", { input: { text: "x" }, provider: "nope" }, 400, "UNKNOWN_PROVIDER"],
    ];
    for (const [method, path, body, status, code] of expectations) {
      const response = await call(server, method, path, body);
      expect([response.status, response.json.error.code], `${method} ${path}`).toEqual([status, code]);
      expect(response.json.error.requestId).toBe(response.headers.get("x-request-id"));
    }
  });

  it("keeps /health/detailed's process details behind auth; the probes stay public", async () => {
    const keys = { "health-key-1": { id: "ops", roles: ["admin"], permissions: ["*"] } };
    const guarded = await start({
      runtime: createContractRuntime(),
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        for (const middleware of createAuthFromConfig({ type: "api-key", keys })) adapter.registerMiddleware(middleware);
        registerAllRoutes(adapter);
      },
    });
    for (const path of ["/api/health", "/api/health/live", "/api/health/ready", "/health", "/ready"])
      expect((await fetch(guarded.url(path))).status, path).toBe(200);
    const anonymous = await fetch(guarded.url("/api/health/detailed"));
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(await anonymous.json())).not.toContain(String(process.pid));
    const authenticated = await (await fetch(guarded.url("/api/health/detailed"), { headers: { "x-api-key": "health-key-1" } })).json();
    expect(authenticated.data.process).toMatchObject({ pid: process.pid, node: process.version });

    // Without any auth the detailed view answers, without process details (config.health.processDetails: "authenticated").
    const open = await start(setup().options);
    const stripped = await (await fetch(open.url("/api/health/detailed"))).json();
    expect(stripped.data).toMatchObject({ status: "ok", state: "running" });
    expect(stripped.data.process).toBeUndefined();
    const always = await start({ ...setup().options, config: { rateLimit: { enabled: false }, health: { processDetails: "always" } } });
    expect((await (await fetch(always.url("/api/health/detailed"))).json()).data.process.pid).toBe(process.pid);
    const never = await start({ ...setup().options, config: { rateLimit: { enabled: false }, health: { processDetails: "never" } } });
    expect(
      (await (await fetch(never.url("/api/health/detailed"), { headers: { "x-test-user": "ops" } })).json()).data.process,
    ).toBeUndefined();
  });

  it("answers a tool that needs confirmation with 428 from the reference runtime and the fixture alike", async () => {
    const reference = createRuntime({
      builtinTools: false,
      tools: [
        {
          name: "wipe",
          description: "Deletes everything",
          schema: z.object({}),
          requiresConfirmation: true,
          execute: () => ({ wiped: true }),
        },
      ],
    });
    try {
      for (const runtime of [reference, createContractRuntime()]) {
        const server = await start(setup(runtime as ReturnType<typeof createContractRuntime>).options);
        const refused = await call(server, "POST", "/api/tools/wipe/execute", {});
        expect([refused.status, refused.json.error.code]).toEqual([428, "USER_CONFIRMATION_REQUIRED"]);
        const confirmed = await call(server, "POST", "/api/tools/wipe/execute", { confirmed: true });
        expect(confirmed.status).toBe(200);
      }
    } finally {
      await reference.close();
    }
  });

  it("streams /agent/stream as SSE frames ending in finish, and as NDJSON on request", async () => {
    const server = await start(setup().options);
    const response = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { text: "one two" } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => frames.push(event) });
    parser.feed(await response.text());
    expect(frames.map((frame) => frame.event)).toEqual(["text-start", "text-delta", "text-delta", "text-delta", "text-end", "finish"]);
    const deltas = frames
      .filter((frame) => frame.event === "text-delta")
      .map((frame) => (JSON.parse(frame.data) as { data: { delta: string } }).data.delta);
    expect(deltas.join("")).toBe("echo: one two ");
    expect(frames[1]?.id).toBe("text-1");
    expect(JSON.parse(frames.at(-1)?.data ?? "{}")).toMatchObject({ type: "finish", data: { reason: "stop" } });

    const ndjson = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ prompt: "x" }),
    });
    expect(ndjson.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const lines = (await ndjson.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.at(-1)?.type).toBe("finish");
    const invalid = await call(server, "POST", "/api/agent/stream", { input: {} });
    expect([invalid.status, invalid.json.error.details?.errors?.[0]?.field]).toEqual([400, "body.input.text"]);
  });

  it("mounts createAllRoutes(basePath, options) in docs/spec.md's order, and the earlier runtime-first form alike", async () => {
    const runtime = createContractRuntime();
    const mount = (groups: ReturnType<typeof createAllRoutes>) => (adapter: BaseServerAdapter<unknown>) => {
      for (const group of groups) adapter.registerRouteGroup(group);
    };
    const forms = [
      createAllRoutes("/api", { runtime, enableSwagger: true }),
      createAllRoutes(runtime, "/api", { enableSwagger: true }),
      createAllRoutes({ runtime }),
    ];
    for (const groups of forms) {
      const server = await start({ config: { rateLimit: { enabled: false } }, setup: mount(groups) });
      const providers = await call(server, "GET", "/api/agent/providers");
      expect(providers.status).toBe(200);
      expect(providers.json.data.total).toBe((await runtime.listProviders()).length);
      await server.adapter.stop();
    }
    // The spec's form without a runtime: the routes explain themselves instead of failing with a 500.
    const bare = await start({ config: { rateLimit: { enabled: false } }, setup: mount(createAllRoutes("/api", { enableSwagger: true })) });
    const unavailable = await call(bare, "GET", "/api/agent/providers");
    expect([unavailable.status, unavailable.json.error.code]).toEqual([503, "RUNTIME_UNAVAILABLE"]);
    expect((await call(bare, "GET", "/api/docs/openapi.json")).status).toBe(200);
  });

  it("serves the OpenAPI document raw as JSON and YAML, with user routes, and the reference page", async () => {
    const server = await start(setup().options);
    const json = await fetch(server.url("/api/docs/openapi.json"));
    expect(json.headers.get("content-type")).toContain("application/json");
    const document = (await json.json()) as { openapi: string; data?: unknown; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe("3.1.0");
    expect(document.data).toBeUndefined();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/api/custom/{thing}", "/api/tools/{name}", "/api/agent/stream", "/api/metrics"]),
    );
    const yaml = await fetch(server.url("/api/docs/openapi.yaml"));
    expect(yaml.headers.get("content-type")).toContain("application/yaml");
    const yamlText = await yaml.text();
    expect(yamlText).toMatch(/^openapi: 3\.1\.0$/m);
    expect(yamlText).toContain("/api/custom/{thing}:");
    const page = await fetch(server.url("/api/docs"));
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/api/docs/assets/swagger-ui-bundle.js");
    const css = await fetch(server.url("/api/docs/assets/swagger-ui.css"));
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
    expect((await css.text()).length).toBeGreaterThan(10_000);
    expect((await fetch(server.url("/api/docs/assets/..%2Fpackage.json"))).status).toBe(404);
  });

  it("exposes Prometheus metrics by route template, and JSON on request", async () => {
    // Scraped anonymously: the process and HTTP figures are public only when the operator says so (metrics-access.test.ts).
    const options = setup().options;
    const server = await start({ ...options, config: { ...options.config, metrics: { public: true } } });
    await call(server, "GET", "/api/tools/add");
    await call(server, "GET", "/api/tools/nope");
    await call(server, "GET", "/api/not/a/route");
    const stream = await fetch(server.url("/api/agent/stream"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"prompt":"x"}',
    });
    await stream.text();
    const text = await fetch(server.url("/api/metrics"));
    expect(text.headers.get("content-type")).toContain("text/plain");
    const body = await text.text();
    expect(body).toContain('conduit_http_requests_total{method="GET",route="/api/tools/:name",status="200"} 1');
    expect(body).toContain('conduit_http_requests_total{method="GET",route="/api/tools/:name",status="404"} 1');
    expect(body).toContain('conduit_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(body).toContain('conduit_http_requests_total{method="POST",route="/api/agent/stream",status="200"} 1');
    expect(body).toContain("conduit_active_streams 0");
    expect(body).toMatch(/conduit_active_connections [1-9]/);
    expect(body).not.toContain("/api/not/a/route");
    const json = await fetch(server.url("/api/metrics"), { headers: { accept: "application/json" } });
    expect(json.headers.get("content-type")).toContain("application/json");
    const metrics = (await json.json()) as Array<{ name: string }>;
    expect(metrics.map((metric) => metric.name)).toContain("conduit_http_request_duration_seconds");
  });
});
