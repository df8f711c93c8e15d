import { type BaseServerAdapter, rawResponse } from "@conduit-ai/server-core";
import { createValidationMiddleware } from "@conduit-ai/server-core/middleware";
import { expect, it } from "vitest";
import { forEachAdapter, rawRequest } from "./harness.js";

/** What the handler saw, described without trusting the object's prototype. */
function describeObject(value: unknown) {
  const object = value as Record<string, unknown>;
  return {
    prototypeIsNull: Object.getPrototypeOf(object) === null,
    entries: Object.entries(object),
    constructorIsOwn: Object.hasOwn(object, "constructor"),
  };
}

function registerRoutes(adapter: BaseServerAdapter<unknown>): void {
  adapter.registerRoute({ method: "GET", path: "/query", handler: (ctx) => describeObject(ctx.query) });
  adapter.registerRoute({ method: "POST", path: "/form", handler: (ctx) => describeObject(ctx.body) });
  adapter.registerRoute({
    method: "GET",
    path: "/headers",
    handler: (ctx) => ({
      constructor: ctx.header("constructor") ?? null,
      toString: ctx.header("toString") ?? null,
      proto: ctx.header("__proto__") ?? null,
    }),
  });
  adapter.registerRoute({
    method: "GET",
    path: "/raw-headers",
    handler: () => rawResponse("{}", { headers: JSON.parse('{"content-type":"application/json","__proto__":{"x-polluted":"yes"}}') }),
  });
  adapter.registerRoute({
    method: "POST",
    path: "/validated",
    middleware: [
      createValidationMiddleware({
        body: {
          required: ["toString"],
          properties: { name: { type: "string" as const }, toString: { type: "string" as const } },
          additionalProperties: false,
        },
      }),
    ],
    handler: (ctx) => ctx.body,
  });
}

forEachAdapter("prototype keys are plain keys", ({ start }) => {
  it("parses ?__proto__=a&__proto__=b&constructor=x&hasOwnProperty=1 into a prototype-free object", async () => {
    const server = await start({ setup: registerRoutes });
    const response = await rawRequest(server.port, {
      path: "/api/query?__proto__=a&__proto__=b&constructor=x&hasOwnProperty=1&toString=2",
    });
    expect(response.status).toBe(200);
    const seen = JSON.parse(response.body).data;
    expect(seen.prototypeIsNull).toBe(true);
    expect(seen.constructorIsOwn).toBe(true);
    expect(seen.entries).toEqual([
      ["__proto__", ["a", "b"]],
      ["constructor", "x"],
      ["hasOwnProperty", "1"],
      ["toString", "2"],
    ]);
    // And nothing global changed.
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it("parses form bodies the same way", async () => {
    const server = await start({ setup: registerRoutes });
    const response = await fetch(server.url("/api/form"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "__proto__=a&__proto__=b&constructor=x&hasOwnProperty=1",
    });
    const seen = (await response.json()).data;
    expect(seen.prototypeIsNull).toBe(true);
    expect(seen.entries).toEqual([
      ["__proto__", ["a", "b"]],
      ["constructor", "x"],
      ["hasOwnProperty", "1"],
    ]);
  });

  it("collects a key repeated 50 000 times in linear time", async () => {
    const server = await start({ setup: registerRoutes });
    const body = Array.from({ length: 50_000 }, (_, index) => `k=${index}`).join("&");
    const response = await fetch(server.url("/api/form"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const seen = (await response.json()).data;
    expect(seen.entries[0][1]).toHaveLength(50_000);
  });

  it("finds only headers the client sent: ctx.header('constructor') is not Object.prototype's", async () => {
    const server = await start({ setup: registerRoutes });
    const absent = await rawRequest(server.port, { path: "/api/headers" });
    expect(JSON.parse(absent.body).data).toEqual({ constructor: null, toString: null, proto: null });
    const sent = await rawRequest(server.port, { path: "/api/headers", headers: { constructor: "c", tostring: "t" } });
    expect(JSON.parse(sent.body).data).toEqual({ constructor: "c", toString: "t", proto: null });
  });

  it("copies a handler's __proto__ header key as a key, never as a prototype", async () => {
    const server = await start({ setup: registerRoutes });
    const response = await rawRequest(server.port, { path: "/api/raw-headers" });
    expect(response.status).toBe(200);
    expect(response.headers["x-polluted"]).toBeUndefined();
  });

  it("does not let Object.prototype satisfy a required field or pass additionalProperties: false", async () => {
    const server = await start({ setup: registerRoutes });
    const missing = await fetch(server.url("/api/validated"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"x"}',
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.details.errors.map((issue: { field: string }) => issue.field)).toEqual(["body.toString"]);
    const extra = await fetch(server.url("/api/validated"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"toString":"1","constructor":"x"}',
    });
    expect(extra.status).toBe(400);
    expect((await extra.json()).error.details.errors.map((issue: { field: string }) => issue.field)).toEqual(["body.constructor"]);
  });
});
