import { createHealthRoutes } from "@conduit-ai/server-core";
import { createAdapter } from "@conduit-ai/adapter-fastify";
for (const stack of [false, true]) {
  const adapter = createAdapter(undefined, { port: 0, host: "127.0.0.1", logging: { enabled: false } }, { defaultMiddleware: stack });
  adapter.registerRouteGroup(createHealthRoutes(adapter as never));
  const route = adapter.listRoutes().find((r) => r.fullPath === "/api/health");
  const input = () => ({ method: "GET", url: "/api/health", headers: { host: "x", "user-agent": "bench" }, clientAddress: "127.0.0.1", body: { kind: "none" as const }, });
  for (let i = 0; i < 20000; i++) (await adapter.handler.dispatch(input(), route)).done();
  const n = 100000;
  const t = performance.now();
  for (let i = 0; i < n; i++) (await adapter.handler.dispatch(input(), route)).done();
  console.log(`stack=${stack}: ${(((performance.now() - t) * 1000) / n).toFixed(1)} µs per dispatch`);
}
