import { afterEach, describe, expect, it } from "vitest";
import { type FastifyServerAdapter, createAdapter } from "./index.js";

const running: FastifyServerAdapter[] = [];
afterEach(async () => {
  for (const adapter of running.splice(0)) if (adapter.getLifecycleState() === "running") await adapter.stop();
});

function newAdapter(limit = 10 * 1024 * 1024): FastifyServerAdapter {
  const adapter = createAdapter(undefined, {
    port: 0,
    host: "127.0.0.1",
    logging: { enabled: false },
    bodyParser: { enabled: true, limit },
  });
  adapter.registerRoute({ method: "POST", path: "/echo", handler: (ctx) => ({ size: JSON.stringify(ctx.body).length }) });
  running.push(adapter);
  return adapter;
}

const url = (adapter: FastifyServerAdapter, path: string) => `http://127.0.0.1:${adapter.address()?.port}${path}`;

describe("FastifyServerAdapter", () => {
  it("applies Conduit's body limit, not Fastify's 1 MiB bodyLimit", async () => {
    const adapter = newAdapter(3 * 1024 * 1024);
    await adapter.start();
    const body = JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) });
    const response = await fetch(url(adapter, "/api/echo"), { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(response.status).toBe(200);
    expect((await response.json()).data.size).toBe(body.length);
  });

  it("answers an unsupported media type with Conduit's 415 envelope, not Fastify's error", async () => {
    const adapter = newAdapter();
    await adapter.start();
    const response = await fetch(url(adapter, "/api/echo"), {
      method: "POST",
      headers: { "content-type": "application/xml" },
      body: "<a/>",
    });
    expect(response.status).toBe(415);
    expect((await response.json()).error.requestId).toMatch(/^req-/);
  });

  it("keeps Fastify's own parsing for the user's native routes, and restarts with a fresh instance", async () => {
    const adapter = newAdapter();
    await adapter.initialize();
    adapter.getFrameworkInstance().post("/native", async (request) => ({ parsedByFastify: request.body }));
    await adapter.start();
    const native = await fetch(url(adapter, "/native"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await native.json()).toEqual({ parsedByFastify: { a: 1 } });
    const first = adapter.getFrameworkInstance();
    await adapter.stop();
    await adapter.start();
    expect(adapter.getFrameworkInstance()).not.toBe(first);
    expect((await fetch(url(adapter, "/health"))).status).toBe(200);
  });
});
