import { afterEach, describe, expect, it } from "vitest";
import { createAdapter } from "./hono-adapter.js";

// While the Hono app holds only Conduit's routes, the core takes requests itself (no web Request,
// no Hono context); whatever a user adds to the app natively must still be served by Hono.
describe("Hono adapter: the core's direct path gives way to native additions", () => {
  const adapters: ReturnType<typeof createAdapter>[] = [];
  afterEach(async () => {
    for (const adapter of adapters.splice(0)) await adapter.stop();
  });

  async function started() {
    const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } });
    adapters.push(adapter);
    adapter.registerRoute({ method: "GET", path: "/hello", handler: () => ({ hello: "world" }) });
    await adapter.start();
    const base = `http://127.0.0.1:${adapter.address()?.port}`;
    return { adapter, app: adapter.getFrameworkInstance(), base };
  }

  it("serves Conduit's routes and its 404 alone", async () => {
    const { base } = await started();
    const hello = await fetch(`${base}/api/hello`);
    expect(hello.status).toBe(200);
    expect((await hello.json()).data).toEqual({ hello: "world" });
    const head = await fetch(`${base}/api/hello`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const missing = await fetch(`${base}/api/nowhere`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("ROUTE_NOT_FOUND");
  });

  it("serves a native route added after start, beside Conduit's", async () => {
    const { app, base } = await started();
    app.get("/native", (c) => c.text("native route"));
    const native = await fetch(`${base}/native`);
    expect(native.status).toBe(200);
    expect(await native.text()).toBe("native route");
    expect((await (await fetch(`${base}/api/hello`)).json()).data).toEqual({ hello: "world" });
  });

  it("answers unmatched paths with a native notFound handler", async () => {
    const { app, base } = await started();
    app.notFound((c) => c.text("native not found", 404));
    const missing = await fetch(`${base}/api/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("native not found");
    expect((await (await fetch(`${base}/api/hello`)).json()).data).toEqual({ hello: "world" });
  });
});
