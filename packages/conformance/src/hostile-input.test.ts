import { type BaseServerAdapter, ServerAdapterError, rawResponse, registerAllRoutes } from "@conduit-ai/server-core";
import { expect, it } from "vitest";
import { createContractRuntime } from "./fixtures/contract-runtime.js";
import { forEachAdapter, rawRequest } from "./harness.js";

/** `{"a":{"a":…}}` nested `depth` levels: 20 KB at 10 000 levels, enough to overflow a recursive serializer. */
const nested = (depth: number, leaf = "1") => `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;
const nestedArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const json = { "content-type": "application/json" };

/** Every hostile value a handler can return or throw; each must end as a 500 envelope. */
function hostileRoutes(adapter: BaseServerAdapter<unknown>): void {
  const circular: Record<string, unknown> = { name: "loop" };
  circular.self = circular;
  const results: Record<string, () => unknown> = {
    "throwing-getter": () => ({
      get secret() {
        throw new Error("getter exploded");
      },
    }),
    circular: () => circular,
    bigint: () => ({ count: 10n }),
    "throwing-to-json": () => ({
      toJSON() {
        throw new Error("toJSON exploded");
      },
    }),
    "deep-result": () => JSON.parse(nested(5_000)) as unknown,
    "throws-proxy": () => {
      throw new Proxy(
        {},
        {
          get() {
            throw new Error("trap");
          },
          getPrototypeOf() {
            throw new Error("trap");
          },
          has() {
            throw new Error("trap");
          },
        },
      );
    },
    "throws-string": () => {
      throw "plain string";
    },
    "throws-null": () => {
      throw null;
    },
    "throws-frozen-server-error": () => {
      throw Object.freeze(new ServerAdapterError("frozen", { code: "FROZEN", statusCode: 409 }));
    },
    "server-error-circular-details": () => {
      throw new ServerAdapterError("bad details", { code: "CIRCULAR_DETAILS", statusCode: 422, details: circular });
    },
    "server-error-bigint-details": () => {
      throw new ServerAdapterError("bad details", { code: "BIGINT_DETAILS", statusCode: 422, details: { n: 1n } });
    },
    "rejects-later": () => new Promise((_resolve, reject) => setTimeout(() => reject(new Error("late")), 5)),
    "bad-header": () => rawResponse("x", { headers: { "x-bad": "a\r\nInjected: yes" } }),
    "bad-status": () => rawResponse("x", { status: 42 }),
    "bad-raw-body": () => rawResponse(12345 as never),
  };
  for (const [name, handler] of Object.entries(results)) adapter.registerRoute({ method: "GET", path: `/hostile/${name}`, handler });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
  adapter.registerRoute({ method: "GET", path: "/ok", handler: () => ({ ok: true }) });
  adapter.registerRoute({
    method: "GET",
    path: "/bigint-stream",
    streaming: true,
    handler: async function* () {
      yield { type: "text-delta", id: "t", data: { delta: "fine" } };
      yield { type: "data", data: { n: 1n } };
    },
  });
}

async function expectEnvelope(
  response: Response | { status: number; body: string; headers: Record<string, unknown> },
  status: number,
  code?: string,
) {
  const text = "text" in response && typeof response.text === "function" ? await response.text() : (response as { body: string }).body;
  expect(response.status).toBe(status);
  const body = JSON.parse(text);
  expect(body.error.requestId).toBe(body.metadata.requestId);
  if (code) expect(body.error.code).toBe(code);
  return { body, text };
}

forEachAdapter("hostile input: nothing ends the process or escapes the envelope", ({ start }) => {
  it("refuses a 10 000-level JSON body with a small 400 and keeps serving", async () => {
    const server = await start({ setup: hostileRoutes });
    for (const body of [nested(10_000), nestedArray(10_000)]) {
      const response = await fetch(server.url("/api/echo"), { method: "POST", headers: json, body });
      const { text, body: envelope } = await expectEnvelope(response, 400, "VALIDATION_ERROR");
      expect(text.length).toBeLessThan(2_000);
      expect(envelope.error.message).toMatch(/nest/i);
    }
    expect((await fetch(server.url("/api/ok"))).status).toBe(200);
    expect(server.adapter.handler.inFlightCount).toBe(0);
  });

  it("refuses a deep provider field of /agent/execute and /agent/stream without copying it back", async () => {
    const server = await start({
      runtime: createContractRuntime(),
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => void registerAllRoutes(adapter as never),
    });
    for (const path of ["/api/agent/execute", "/api/agent/stream"]) {
      const body = `{"input":{"text":"hi"},"provider":${nested(10_000)}}`;
      const response = await fetch(server.url(path), { method: "POST", headers: json, body });
      const { text } = await expectEnvelope(response, 400, "VALIDATION_ERROR");
      expect(text.length, path).toBeLessThan(2_000);
    }
    // Within the depth limit, a wrong-typed provider is reported without its (large) value.
    const wide = `{"input":{"text":"hi"},"provider":{"list":[${Array.from({ length: 2_000 }, () => '"xxxxxxxxxx"').join(",")}]}}`;
    const response = await fetch(server.url("/api/agent/execute"), { method: "POST", headers: json, body: wide });
    const { text, body } = await expectEnvelope(response, 400, "VALIDATION_ERROR");
    expect(body.error.details.errors[0].field).toBe("body.provider");
    expect(text.length).toBeLessThan(2_000);
    expect(
      (await fetch(server.url("/api/agent/execute"), { method: "POST", headers: json, body: '{"input":{"text":"still alive"}}' })).status,
    ).toBe(200);
  });

  it("accepts nesting up to bodyParser.maxDepth (default 64) and refuses one level more", async () => {
    const server = await start({ setup: hostileRoutes });
    const post = (body: string) => fetch(server.url("/api/echo"), { method: "POST", headers: json, body });
    expect((await post(nested(64))).status).toBe(200);
    await expectEnvelope(await post(nested(65)), 400, "VALIDATION_ERROR");
    await expectEnvelope(await post(`{"list":${nestedArray(65)}}`), 400, "VALIDATION_ERROR");
    // Brackets inside strings are text, not nesting.
    expect((await post(JSON.stringify({ text: "[".repeat(500) }))).status).toBe(200);
    const deeper = await start({ setup: hostileRoutes, config: { bodyParser: { maxDepth: 200 } } });
    expect((await fetch(deeper.url("/api/echo"), { method: "POST", headers: json, body: nested(150) })).status).toBe(200);
  });

  it("answers every hostile handler result or throw with a 500 envelope (or its own status), and releases each request", async () => {
    const errors: unknown[] = [];
    const server = await start({
      setup: (adapter) => {
        hostileRoutes(adapter);
        adapter.on("error", (event) => errors.push(event));
      },
    });
    const expected: Record<string, [number, string]> = {
      "throwing-getter": [500, "HANDLER_ERROR"],
      circular: [500, "HANDLER_ERROR"],
      bigint: [500, "HANDLER_ERROR"],
      "throwing-to-json": [500, "HANDLER_ERROR"],
      "deep-result": [500, "HANDLER_ERROR"],
      "throws-proxy": [500, "HANDLER_ERROR"],
      "throws-string": [500, "HANDLER_ERROR"],
      "throws-null": [500, "HANDLER_ERROR"],
      "throws-frozen-server-error": [409, "FROZEN"],
      "server-error-circular-details": [422, "CIRCULAR_DETAILS"],
      "server-error-bigint-details": [422, "BIGINT_DETAILS"],
      "rejects-later": [500, "HANDLER_ERROR"],
      "bad-header": [500, "HANDLER_ERROR"],
      "bad-status": [500, "HANDLER_ERROR"],
      "bad-raw-body": [500, "HANDLER_ERROR"],
    };
    for (const [name, [status, code]] of Object.entries(expected)) {
      const response = await rawRequest(server.port, { path: `/api/hostile/${name}` });
      expect([response.status, response.headers["content-type"]], name).toEqual([status, "application/json; charset=utf-8"]);
      const body = JSON.parse(response.body);
      expect(body.error.code, name).toBe(code);
      expect(response.headers.injected, name).toBeUndefined();
      expect(response.body, name).not.toMatch(/exploded|trap|late|plain string/);
    }
    expect((await fetch(server.url("/api/ok"))).status).toBe(200);
    expect(server.adapter.handler.inFlightCount).toBe(0);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("survives a logger and an error listener that throw", async () => {
    const server = await start({
      setup: (adapter) => {
        hostileRoutes(adapter);
        adapter.on("error", () => {
          throw new Error("listener exploded");
        });
      },
    });
    const throwing = () => {
      throw new Error("logger exploded");
    };
    server.adapter.handler.logger = {
      trace: throwing,
      debug: throwing,
      info: throwing,
      warn: throwing,
      error: throwing,
      fatal: throwing,
      child: () => server.adapter.handler.logger,
    } as never;
    await expectEnvelope(await fetch(server.url("/api/hostile/circular")), 500, "HANDLER_ERROR");
    await expectEnvelope(await fetch(server.url("/api/hostile/throws-proxy")), 500, "HANDLER_ERROR");
    expect(server.adapter.handler.inFlightCount).toBe(0);
  });

  it("answers a throwing middleware (before or after next) with MIDDLEWARE_ERROR, never the handler's code", async () => {
    const server = await start({
      setup: (adapter) => {
        hostileRoutes(adapter);
        adapter.registerMiddleware({
          name: "after-next",
          order: 50,
          paths: ["/after"],
          handler: async (_ctx, next) => {
            await next();
            throw new Error("after next exploded");
          },
        });
        adapter.registerMiddleware({
          name: "sync-before",
          order: 50,
          paths: ["/before"],
          handler: () => {
            throw new TypeError("before exploded");
          },
        });
        adapter.registerRoute({ method: "GET", path: "/after", handler: () => ({ fine: true }) });
        adapter.registerRoute({ method: "GET", path: "/before", handler: () => ({ fine: true }) });
        adapter.registerRoute({
          method: "GET",
          path: "/handler",
          handler: () => {
            throw new Error("handler exploded");
          },
        });
      },
    });
    for (const path of ["/api/after", "/api/before"]) {
      const { text } = await expectEnvelope(await fetch(server.url(path)), 500, "MIDDLEWARE_ERROR");
      expect(text).not.toContain("exploded");
    }
    await expectEnvelope(await fetch(server.url("/api/handler")), 500, "HANDLER_ERROR");
  });

  it("ends a stream whose event cannot be serialized with a final STREAM_ERROR event", async () => {
    const server = await start({ setup: hostileRoutes });
    const response = await fetch(server.url("/api/bigint-stream"));
    const text = await response.text();
    const events = text
      .split("\n\n")
      .filter(Boolean)
      .map((frame) =>
        JSON.parse(
          frame
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6) ?? "null",
        ),
      );
    expect(events[0].type).toBe("text-delta");
    expect(events.at(-1)).toMatchObject({ type: "error", data: { code: "STREAM_ERROR" } });
  });
});
