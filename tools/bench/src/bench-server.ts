/**
 * One benchmark server in its own process (so the load generator never shares its event
 * loop): `bench-server.ts <framework> <conduit|bare>`. It answers `GET /api/health` and
 * sends its port to the parent over IPC.
 *
 * - conduit: the adapter from `createServer` with its default middleware stack and the
 *   health group (default config; request logging skips `/health` by default anyway).
 * - core (diagnostic, `--modes conduit,core,bare`): the adapter without the default stack,
 *   to tell the bridge and core's cost from the middleware's.
 * - bare: the framework alone answering the same JSON shape (envelope with a request id),
 *   so both sides put the same bytes on the wire.
 */
import { randomUUID } from "node:crypto";
import { type Server, createServer as createNodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ADAPTER_PACKAGES,
  type AdapterOptions,
  type ServerAdapter,
  type ServerAdapterConfig,
  type ServerFramework,
  VERSION,
  createHealthRoutes,
  createServer,
} from "@conduit-ai/server-core";

const [framework, mode] = process.argv.slice(2) as [ServerFramework, "conduit" | "core" | "bare"];

function healthBody(): string {
  const started = performance.now();
  const requestId = `req-${randomUUID()}`;
  return JSON.stringify({
    data: { status: "ok", uptime: Math.floor(process.uptime()), version: VERSION },
    metadata: { requestId, timestamp: new Date().toISOString(), duration: Math.round((performance.now() - started) * 100) / 100 },
  });
}

type AdapterClass = new (runtime: undefined, config: ServerAdapterConfig, options: AdapterOptions) => ServerAdapter;

async function startConduit(withDefaultStack: boolean): Promise<number> {
  const config: ServerAdapterConfig = { port: 0, host: "127.0.0.1" };
  let server: ServerAdapter;
  if (withDefaultStack) server = await createServer(undefined, { framework, config });
  else {
    const module = (await import(ADAPTER_PACKAGES[framework].adapter)) as Record<string, unknown>;
    const Adapter = Object.values(module).find(
      (value) => typeof value === "function" && value.name.endsWith("ServerAdapter"),
    ) as AdapterClass;
    server = new Adapter(undefined, config, { defaultMiddleware: false });
  }
  server.registerRouteGroup(createHealthRoutes(server as Parameters<typeof createHealthRoutes>[0]));
  await server.start();
  return server.getStatus().port ?? 0;
}

async function bareServer(): Promise<Server> {
  switch (framework) {
    case "hono": {
      const { Hono } = await import("hono");
      const { createAdaptorServer } = await import("@hono/node-server");
      const app = new Hono();
      app.get("/api/health", (c) => c.body(healthBody(), 200, { "content-type": "application/json; charset=utf-8" }));
      return createAdaptorServer({ fetch: app.fetch }) as Server;
    }
    case "express": {
      const { default: express } = await import("express");
      const app = express();
      app.get("/api/health", (_request, response) => {
        response.type("application/json").send(healthBody());
      });
      return createNodeServer(app);
    }
    case "fastify": {
      const { default: Fastify } = await import("fastify");
      let server: Server | undefined;
      const app = Fastify({ serverFactory: (handler) => (server = createNodeServer(handler)) });
      app.get("/api/health", (_request, reply) => {
        reply.type("application/json; charset=utf-8").send(healthBody());
      });
      await app.ready();
      return server as Server;
    }
    case "koa": {
      const { default: Koa } = await import("koa");
      const { default: Router } = await import("@koa/router");
      const app = new Koa();
      const router = new Router();
      router.get("/api/health", (ctx) => {
        ctx.type = "application/json";
        ctx.body = healthBody();
      });
      app.use(router.routes());
      return createNodeServer(app.callback());
    }
  }
}

async function startBare(): Promise<number> {
  const server = await bareServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

const port = mode === "bare" ? await startBare() : await startConduit(mode === "conduit");
process.send?.({ port });
process.on("disconnect", () => process.exit(0));
