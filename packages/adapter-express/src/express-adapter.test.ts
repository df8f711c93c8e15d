import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { type ExpressServerAdapter, createAdapter } from "./index.js";

const running: ExpressServerAdapter[] = [];
afterEach(async () => {
  for (const adapter of running.splice(0)) if (adapter.getLifecycleState() === "running") await adapter.stop();
});

function newAdapter(): ExpressServerAdapter {
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
  running.push(adapter);
  return adapter;
}

const url = (adapter: ExpressServerAdapter, path: string) => `http://127.0.0.1:${adapter.address()?.port}${path}`;

describe("ExpressServerAdapter", () => {
  it("uses a body the user's own express.json() already parsed", async () => {
    const adapter = newAdapter();
    await adapter.initialize();
    adapter.getFrameworkInstance().use(express.json());
    await adapter.start();
    const response = await fetch(url(adapter, "/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(response.status).toBe(200);
    expect((await response.json()).data).toEqual({ received: { a: 1 } });
    expect(response.headers.get("x-powered-by")).toBeNull();
  });

  it("answers an error of the user's native route in plain text without a stack, and Conduit's routes in the envelope", async () => {
    const adapter = newAdapter();
    await adapter.initialize();
    adapter.getFrameworkInstance().get("/native-fails", () => {
      throw new Error("secret detail");
    });
    await adapter.start();
    const failed = await fetch(url(adapter, "/native-fails"));
    expect(failed.status).toBe(500);
    expect(await failed.text()).toBe("Internal Server Error");
    const unknown = await fetch(url(adapter, "/api/unknown"));
    expect((await unknown.json()).error.code).toBe("ROUTE_NOT_FOUND");
  });

  it("builds a fresh Express app on restart and keeps serving Conduit's routes", async () => {
    const adapter = newAdapter();
    await adapter.start();
    const first = adapter.getFrameworkInstance();
    await adapter.stop();
    await adapter.start();
    expect(adapter.getFrameworkInstance()).not.toBe(first);
    const response = await fetch(url(adapter, "/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ b: 2 }),
    });
    expect((await response.json()).data).toEqual({ received: { b: 2 } });
  });
});
