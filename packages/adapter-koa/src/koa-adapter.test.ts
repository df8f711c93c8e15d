import { afterEach, describe, expect, it } from "vitest";
import { type KoaServerAdapter, createAdapter } from "./index.js";

const running: KoaServerAdapter[] = [];
afterEach(async () => {
  for (const adapter of running.splice(0)) if (adapter.getLifecycleState() === "running") await adapter.stop();
});

function newAdapter(): KoaServerAdapter {
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ received: ctx.body }) });
  running.push(adapter);
  return adapter;
}

const url = (adapter: KoaServerAdapter, path: string) => `http://127.0.0.1:${adapter.address()?.port}${path}`;

describe("KoaServerAdapter", () => {
  it("uses a body the user's own parser already read from the stream", async () => {
    const adapter = newAdapter();
    await adapter.initialize();
    // A minimal body parser of the user's, like @koa/bodyparser.
    adapter.getFrameworkInstance().use(async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      (ctx.request as { body?: unknown }).body = { parsedByUser: Buffer.concat(chunks).toString("utf8") };
      await next();
    });
    await adapter.start();
    const response = await fetch(url(adapter, "/api/echo"), { method: "POST", body: '{"a":1}' });
    expect((await response.json()).data).toEqual({ received: { parsedByUser: '{"a":1}' } });
  });

  it("answers unknown paths with Conduit's 404 envelope, not Koa's plain Not Found, and restarts", async () => {
    const adapter = newAdapter();
    await adapter.start();
    const unknown = await fetch(url(adapter, "/nowhere"));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("ROUTE_NOT_FOUND");
    const first = adapter.getFrameworkInstance();
    await adapter.stop();
    await adapter.start();
    expect(adapter.getFrameworkInstance()).not.toBe(first);
    expect((await fetch(url(adapter, "/api/echo"), { method: "POST", body: "[1]" })).status).toBe(200);
  });
});
