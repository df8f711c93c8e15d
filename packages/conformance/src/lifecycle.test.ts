import { Agent } from "node:http";
import { expect, it } from "vitest";
import { forEachAdapter, rawRequest, sleep } from "./harness.js";

const events = ["initialized", "started", "stopped", "request", "response", "error"] as const;

forEachAdapter("lifecycle", ({ start, framework }) => {
  it("walks the state machine and emits events with docs/spec.md's payloads", async () => {
    const server = await start({ noStart: true });
    const seen: Record<string, unknown[]> = {};
    for (const event of events) {
      seen[event] = [];
      server.adapter.on(event, (payload) => seen[event]?.push(payload));
    }
    expect(server.adapter.getLifecycleState()).toBe("uninitialized");
    server.adapter.registerRoute({ method: "GET", path: "/ping", handler: () => "pong" });
    await server.adapter.initialize();
    expect(server.adapter.getLifecycleState()).toBe("initialized");
    const routeCount = server.adapter.listRoutes().length;
    expect(server.adapter.listRoutes().map((route) => route.fullPath)).toEqual(expect.arrayContaining(["/health", "/ready", "/api/ping"]));
    expect(seen.initialized?.[0]).toMatchObject({ routeCount, middlewareCount: server.adapter.getStatus().middlewareCount });
    await server.adapter.start();
    expect(server.adapter.getLifecycleState()).toBe("running");
    expect(seen.started?.[0]).toMatchObject({ port: server.port, host: "127.0.0.1", timestamp: expect.any(Number) });
    expect(server.adapter.getStatus()).toMatchObject({ running: true, state: "running", framework, routeCount });
    await fetch(server.url("/api/ping"));
    expect(seen.request?.[0]).toMatchObject({ method: "GET", path: "/api/ping", requestId: expect.stringMatching(/^req-/) });
    expect(seen.response?.[0]).toMatchObject({ statusCode: 200, duration: expect.any(Number) });
    await server.adapter.stop();
    expect(server.adapter.getLifecycleState()).toBe("stopped");
    expect(seen.stopped?.[0]).toMatchObject({ uptime: expect.any(Number), timestamp: expect.any(Number) });
  });

  it("refuses illegal transitions", async () => {
    const server = await start();
    await expect(server.adapter.start()).rejects.toMatchObject({ code: "ALREADY_RUNNING", name: "AlreadyRunningError" });
    await server.adapter.stop();
    await expect(server.adapter.stop()).rejects.toMatchObject({ code: "NOT_RUNNING", name: "NotRunningError" });
  });

  it("restarts after stop with the same routes", async () => {
    const server = await start({ setup: (adapter) => adapter.registerRoute({ method: "GET", path: "/ping", handler: () => "pong" }) });
    await server.adapter.stop();
    await server.adapter.start();
    const response = await fetch(server.url("/api/ping"));
    expect((await response.json()).data).toBe("pong");
  });

  it("reports a port in use as ServerStartError and stays usable", async () => {
    const first = await start();
    const second = await start({ noStart: true, config: { port: first.port } });
    await expect(second.adapter.start()).rejects.toMatchObject({ code: "START_FAILED" });
    expect(second.adapter.getLifecycleState()).toBe("error");
  });

  it("refuses a duplicate method and path with RouteConflictError", async () => {
    const server = await start({ noStart: true });
    server.adapter.registerRoute({ method: "GET", path: "/a/:id", handler: () => 1 });
    expect(() => server.adapter.registerRoute({ method: "GET", path: "/a/:other", handler: () => 2 })).toThrowError(
      expect.objectContaining({ code: "ROUTE_CONFLICT" }),
    );
    server.adapter.registerRoute({ method: "POST", path: "/a/:id", handler: () => 3 });
  });

  it("survives an error event without listener", async () => {
    const server = await start({
      setup: (adapter) =>
        adapter.registerRoute({
          method: "GET",
          path: "/crash",
          handler: () => {
            throw new Error("boom");
          },
        }),
    });
    expect(server.adapter.listenerCount("error")).toBe(0);
    expect((await fetch(server.url("/api/crash"))).status).toBe(500);
    expect((await fetch(server.url("/health"))).status).toBe(200);
  });

  it("counts open connections exactly", async () => {
    const server = await start();
    expect(server.adapter.getActiveConnectionCount()).toBe(0);
    const agent = new Agent({ keepAlive: true, maxSockets: 3 });
    await Promise.all([0, 1, 2].map(() => rawRequest(server.port, { path: "/health", agent })));
    await sleep(20);
    expect(server.adapter.getActiveConnectionCount()).toBe(3);
    agent.destroy();
    await sleep(50);
    expect(server.adapter.getActiveConnectionCount()).toBe(0);
  });
});

forEachAdapter("graceful shutdown", ({ start }) => {
  /** A route that reports when a request reached it, so tests never guess when it is in flight. */
  const slowRoute = (ms: number) => {
    let reached!: () => void;
    const handlerReached = new Promise<void>((resolve) => (reached = resolve));
    const route = {
      method: "GET" as const,
      path: "/slow",
      handler: () => {
        reached();
        return sleep(ms).then(() => ({ finished: true }));
      },
    };
    return { route, handlerReached };
  };

  it("lets an in-flight request finish, refuses new connections, then stops", async () => {
    const slow = slowRoute(300);
    const server = await start({ setup: (adapter) => adapter.registerRoute(slow.route) });
    const inFlight = fetch(server.url("/api/slow"));
    await slow.handlerReached;
    const stopping = server.adapter.stop();
    expect(server.adapter.getLifecycleState()).toBe("draining");
    await expect(fetch(server.url("/health"))).rejects.toThrow();
    const response = await inFlight;
    expect((await response.json()).data).toEqual({ finished: true });
    await stopping;
    expect(server.adapter.getLifecycleState()).toBe("stopped");
  });

  it("answers new requests on a kept-alive socket with 503 while draining", async () => {
    const slow = slowRoute(1_500);
    const server = await start({ setup: (adapter) => adapter.registerRoute(slow.route) });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await rawRequest(server.port, { path: "/health", agent });
    const inFlight = fetch(server.url("/api/slow"));
    await slow.handlerReached;
    const stopping = server.adapter.stop();
    // The idle socket stays open during the drain, so the request gets the 503 envelope (never a reset).
    const refused = await rawRequest(server.port, { path: "/health", agent });
    expect(refused.status).toBe(503);
    expect(refused.headers.connection).toBe("close");
    expect(JSON.parse(refused.body).error.code).toBe("SERVICE_UNAVAILABLE");
    expect((await inFlight).status).toBe(200);
    await stopping;
    agent.destroy();
  });

  it("force-closes after drainTimeoutMs when forceClose", async () => {
    const slow = slowRoute(5_000);
    const server = await start({
      setup: (adapter) => adapter.registerRoute(slow.route),
      config: { shutdown: { drainTimeoutMs: 100, gracefulShutdownTimeoutMs: 2_000, forceClose: true } },
    });
    const inFlight = fetch(server.url("/api/slow")).catch((error: Error) => error);
    await slow.handlerReached;
    const began = Date.now();
    await server.adapter.stop();
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(await inFlight).toBeInstanceOf(Error);
    expect(server.adapter.getActiveConnectionCount()).toBe(0);
  });

  it("bounds the whole stop by gracefulShutdownTimeoutMs without forceClose", async () => {
    const slow = slowRoute(5_000);
    const server = await start({
      setup: (adapter) => adapter.registerRoute(slow.route),
      config: { shutdown: { drainTimeoutMs: 100, gracefulShutdownTimeoutMs: 400, forceClose: false } },
    });
    void fetch(server.url("/api/slow")).catch(() => undefined);
    await slow.handlerReached;
    const began = Date.now();
    await server.adapter.stop();
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(1_500);
    expect(server.adapter.getLifecycleState()).toBe("stopped");
  });
});
