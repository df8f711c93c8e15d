import { describe, expect, it } from "vitest";
import type { Runtime } from "../../contracts/runtime.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { createAgentRoutes } from "../../routes/agent-routes.js";
import { createTestApp } from "../../testing/test-kit.js";
import { createTestRuntime } from "../../testing/test-runtime.js";
import { requestRuntime, wrapRequestRuntime } from "./request-runtime.js";

const refused = () => new ServerAdapterError("budget spent", { code: "BUDGET_EXCEEDED", statusCode: 429, category: "RATE_LIMIT" as never });

/** The agent routes behind a middleware that wraps the runtime of requests carrying `x-wrap`. */
function appWith(wrap: (runtime: Runtime) => Runtime) {
  const app = createTestApp({
    config: { enableMetrics: false, logging: { enabled: false } },
    middleware: [
      {
        name: "test-wrapper",
        handler: async (ctx, next) => {
          if (ctx.header("x-wrap") !== undefined) wrapRequestRuntime(ctx, wrap);
          await next();
        },
      },
    ],
  });
  app.adapter.registerRouteGroup(createAgentRoutes(createTestRuntime()));
  return app;
}

const post = (url: string, body: unknown, wrapped = true) => ({
  method: "POST",
  url,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", ...(wrapped ? { "x-wrap": "1" } : {}) },
});

describe("the runtime a request's routes call", () => {
  it("is the runtime itself without a wrapper, and every wrapper's in order (the first innermost) with some", () => {
    const runtime = createTestRuntime();
    const state: Record<string, unknown> = {};
    expect(requestRuntime({ state }, runtime)).toBe(runtime);
    const seen: string[] = [];
    const tag = (name: string) => (inner: Runtime) => {
      seen.push(name);
      return { ...inner, name } as Runtime;
    };
    wrapRequestRuntime({ state }, tag("first"));
    wrapRequestRuntime({ state }, tag("second"));
    expect((requestRuntime({ state }, runtime) as Runtime & { name: string }).name).toBe("second");
    expect(seen).toEqual(["first", "second"]);
  });

  it("/agent/generate and /agent/embed call the wrapped runtime; other requests the runtime as given", async () => {
    const { request } = appWith((inner) => ({
      ...inner,
      generate: async () => Promise.reject(refused()),
      embed: async () => Promise.reject(refused()),
    }));
    expect((await request(post("/api/agent/generate", { input: { text: "hi" } }))).status).toBe(429);
    expect((await request(post("/api/agent/embed", { text: "hi" }))).status).toBe(429);
    expect((await request(post("/api/agent/generate", { input: { text: "hi" } }, false))).status).toBe(200);
  });

  it("/agent/stream opens through `openStream` when the runtime has it: a refusal is a status before any event", async () => {
    const { request } = appWith((inner) => ({ ...inner, openStream: async () => Promise.reject(refused()) }));
    const answer = await request(post("/api/agent/stream", { input: { text: "hi" } }));
    expect(answer.status).toBe(429);
    expect(answer.headers["content-type"]).toContain("application/json");
    const open = await request(post("/api/agent/stream", { input: { text: "hi" } }, false));
    expect(open.status).toBe(200);
    expect(open.headers["content-type"]).toContain("text/event-stream");
  });
});
