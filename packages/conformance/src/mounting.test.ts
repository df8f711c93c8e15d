import {
  type BaseServerAdapter,
  type MiddlewareDefinition,
  type MountOptions,
  defineRoute,
  registerAllRoutes,
} from "@conduit-ai/server-core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ADAPTERS } from "./adapters.js";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { MOUNTS, type MountedHost } from "./fixtures/mounted-hosts.js";
import { TEST_CONFIG } from "./harness.js";

/**
 * Framework-native mounting: Conduit inside the user's own app (Fastify plugin, Express router,
 * Hono sub-app, Koa middleware) answers exactly as the standalone server of the same framework
 * does — compared request by request — while the host's middleware, routes and 404 stay the host's.
 */
const conduitMiddleware: MiddlewareDefinition = {
  name: "mark",
  handler: async (ctx, next) => {
    await next();
    ctx.setHeader("x-conduit-middleware", "yes");
  },
};

/** Request ids of `/slow` streams whose handler saw the client leave (`ctx.abortSignal`). */
const abortedStreams = new Set<string>();

function setup(server: BaseServerAdapter<unknown>): void {
  server.registerMiddleware(conduitMiddleware);
  server.registerRoute({
    method: "GET",
    path: "/slow",
    streaming: true,
    handler: async function* (ctx) {
      yield { type: "text-start", id: "t", timestamp: Date.now(), data: {} };
      await new Promise<void>((resolve) => ctx.abortSignal.addEventListener("abort", () => resolve(), { once: true }));
      abortedStreams.add(ctx.requestId);
    },
  });
  server.registerRoute(
    defineRoute({
      method: "GET",
      path: "/items/:id",
      schema: { params: z.object({ id: z.string() }) },
      handler: (ctx) => ({ id: ctx.params.id }),
    }),
  );
  server.registerRoute({
    method: "GET",
    path: "/boom",
    handler: () => {
      throw new Error("secret detail");
    },
  });
}

const mountOptions = (): MountOptions<BaseServerAdapter<unknown>> => ({
  runtime: createContractRuntime(),
  config: { logging: { enabled: false }, rateLimit: { enabled: false }, bodyParser: { limit: 1024 } },
  setup,
});

const json = { "content-type": "application/json" };
/** Requests whose answers must be the same mounted and standalone (paths under `/ai`). */
const REQUESTS: Array<[string, string, RequestInit]> = [
  ["execute", "/ai/agent/execute", { method: "POST", headers: json, body: '{"input":{"text":"hi"}}' }],
  ["param route", "/ai/items/42", {}],
  ["malformed JSON", "/ai/agent/execute", { method: "POST", headers: json, body: "{" }],
  ["invalid body", "/ai/agent/execute", { method: "POST", headers: json, body: '{"input":{}}' }],
  [
    "body over the limit",
    "/ai/agent/execute",
    { method: "POST", headers: json, body: JSON.stringify({ input: { text: "x".repeat(4096) } }) },
  ],
  ["handler crash", "/ai/boom", {}],
  ["unknown tool", "/ai/tools/nope", {}],
  ["wrong method", "/ai/agent/execute", { method: "PUT" }],
  [
    "preflight",
    "/ai/agent/execute",
    { method: "OPTIONS", headers: { origin: "http://app.example", "access-control-request-method": "POST" } },
  ],
  ["readiness", "/ai/health/ready", {}],
];

/** What must match: status, content type, Conduit's headers, and the body without per-request values. */
async function comparable(response: Response) {
  const text = await response.text();
  const body = text.replace(/"(requestId|timestamp|duration|uptime)":("[^"]*"|[0-9.]+)/g, '"$1":"…"');
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    requestId: /^req-/.test(response.headers.get("x-request-id") ?? ""),
    conduitMiddleware: response.headers.get("x-conduit-middleware"),
    allow: response.headers.get("allow"),
    body,
  };
}

describe.each(MOUNTS)("framework-native mounting [$framework]", ({ framework, pathSeen, mount }) => {
  const hosts: MountedHost[] = [];
  const standalone: BaseServerAdapter<unknown>[] = [];
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close();
    for (const server of standalone.splice(0)) if (server.getLifecycleState() === "running") await server.stop();
  });

  async function mounted(): Promise<MountedHost> {
    const host = await mount(mountOptions());
    hosts.push(host);
    return host;
  }

  /** The standalone server seeing the same paths as the mounted form (see `PathSeen`); takes the mounted path. */
  async function standaloneUrl(): Promise<(path: string) => string> {
    const options = mountOptions();
    const create = ADAPTERS.find((adapter) => adapter.framework === framework)?.create as (typeof ADAPTERS)[number]["create"];
    const basePath = pathSeen === "full" ? "/ai" : "";
    const server = create(options.runtime, { ...TEST_CONFIG, ...options.config, basePath, disableBuiltInHealth: true });
    standalone.push(server);
    registerAllRoutes(server);
    setup(server);
    await server.start();
    return (path) => `http://127.0.0.1:${server.address()?.port}${pathSeen === "full" ? path : path.slice("/ai".length)}`;
  }

  it("answers Conduit's paths exactly as the standalone server does", async () => {
    const host = await mounted();
    const reference = await standaloneUrl();
    for (const [name, path, init] of REQUESTS) {
      const [mine, theirs] = await Promise.all([
        fetch(host.url(path), init).then(comparable),
        fetch(reference(path), init).then(comparable),
      ]);
      expect(mine, name).toEqual(theirs);
    }
    const execute = await fetch(host.url("/ai/agent/execute"), REQUESTS[0]?.[2]);
    expect((await execute.json()).data.content).toBe("echo: hi");
    const crash = await fetch(host.url("/ai/boom"));
    expect(crash.status).toBe(500);
    expect(await crash.text()).not.toContain("secret detail");
  });

  it("streams /agent/stream as SSE and as the AI SDK UI message stream, through the host", async () => {
    const host = await mounted();
    const body = JSON.stringify({ input: { text: "one two" } });
    const sse = await fetch(host.url("/ai/agent/stream"), { method: "POST", headers: json, body });
    expect(sse.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = [...(await sse.text()).matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events).toEqual(["text-start", "text-delta", "text-delta", "text-delta", "text-end", "finish"]);
    const ui = await fetch(host.url("/ai/agent/stream?format=ui-message"), { method: "POST", headers: json, body });
    expect(ui.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect((await ui.text()).trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("aborts the handler when the client leaves a stream", async () => {
    const host = await mounted();
    const controller = new AbortController();
    const response = await fetch(host.url("/ai/slow"), { signal: controller.signal });
    const requestId = response.headers.get("x-request-id") as string;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: text-start");
    controller.abort();
    await vi.waitFor(() => expect(abortedStreams.has(requestId)).toBe(true), { timeout: 10_000 });
    await vi.waitFor(() => expect(host.conduit.handler.inFlightCount).toBe(0), { timeout: 10_000 });
  });

  it("leaves the host's middleware, routes and 404 to the host", async () => {
    const host = await mounted();
    const conduitRoute = await fetch(host.url("/ai/items/1"));
    expect(conduitRoute.headers.get("x-host")).toBe("yes");
    const hostRoute = await fetch(host.url("/host"));
    expect([hostRoute.status, await hostRoute.json()]).toEqual([200, { host: true }]);
    expect(hostRoute.headers.get("x-request-id")).toBeNull();
    const elsewhere = await fetch(host.url("/ai/not-conduit"));
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get("x-request-id")).toBeNull();
  });

  it("is running while mounted, and stop() drains it: new requests get 503", async () => {
    const host = await mounted();
    expect(host.conduit.getLifecycleState()).toBe("running");
    await host.conduit.stop();
    expect(host.conduit.getLifecycleState()).toBe("stopped");
    const refused = await fetch(host.url("/ai/items/1"));
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.requestId).toMatch(/^req-/);
    expect((await fetch(host.url("/host"))).status).toBe(200);
  });
});
