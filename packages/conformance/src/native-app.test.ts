import { createAdapter as createExpressAdapter } from "@conduit-ai/adapter-express";
import { createAdapter as createFastifyAdapter } from "@conduit-ai/adapter-fastify";
import { createAdapter as createHonoAdapter } from "@conduit-ai/adapter-hono";
import { createAdapter as createKoaAdapter } from "@conduit-ai/adapter-koa";
import type { BaseServerAdapter, ServerAdapterConfig } from "@conduit-ai/server-core";
import type { Express } from "express";
import type { FastifyInstance } from "fastify";
import type { Hono } from "hono";
import type Koa from "koa";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_CONFIG } from "./harness.js";

/**
 * `getFrameworkInstance()` is the real app: a user's native middleware and route work
 * next to Conduit's routes, and Conduit's envelope applies to Conduit's routes only.
 * Each case adds them with the framework's own API.
 */
interface NativeCase {
  framework: string;
  create(config: ServerAdapterConfig): BaseServerAdapter<unknown>;
  /** Adds `x-native-middleware: yes` to responses and `GET /native` → `{native: true}`. */
  extend(app: unknown): void;
  /**
   * Whether middleware added through `getFrameworkInstance()` also wraps Conduit's routes.
   * Express, Fastify and Koa mount Conduit's router at start, after the user's middleware;
   * Hono runs handlers in registration order, so middleware added after initialize()
   * only sees the user's own later routes (Conduit middleware is the portable way).
   */
  wrapsConduitRoutes: boolean;
}

const CASES: NativeCase[] = [
  {
    framework: "hono",
    create: (config) => createHonoAdapter(undefined, config),
    wrapsConduitRoutes: false,
    extend: (app) => {
      const hono = app as Hono;
      hono.use(async (c, next) => {
        await next();
        c.res.headers.set("x-native-middleware", "yes");
      });
      hono.get("/native", (c) => c.json({ native: true }));
    },
  },
  {
    framework: "express",
    create: (config) => createExpressAdapter(undefined, config),
    wrapsConduitRoutes: true,
    extend: (app) => {
      const express = app as Express;
      express.use((_request, response, next) => {
        response.setHeader("x-native-middleware", "yes");
        next();
      });
      express.get("/native", (_request, response) => {
        response.json({ native: true });
      });
    },
  },
  {
    framework: "fastify",
    create: (config) => createFastifyAdapter(undefined, config),
    wrapsConduitRoutes: true,
    extend: (app) => {
      const fastify = app as FastifyInstance;
      fastify.addHook("onRequest", async (_request, reply) => {
        reply.raw.setHeader("x-native-middleware", "yes");
      });
      fastify.get("/native", async () => ({ native: true }));
    },
  },
  {
    framework: "koa",
    create: (config) => createKoaAdapter(undefined, config),
    wrapsConduitRoutes: true,
    extend: (app) => {
      const koa = app as Koa;
      koa.use(async (ctx, next) => {
        ctx.set("x-native-middleware", "yes");
        if (ctx.path === "/native" && ctx.method === "GET") {
          ctx.body = { native: true };
          return;
        }
        await next();
      });
    },
  },
];

describe.each(CASES)("native app next to Conduit [$framework]", (nativeCase) => {
  const running: BaseServerAdapter<unknown>[] = [];
  afterEach(async () => {
    for (const adapter of running.splice(0)) if (adapter.getLifecycleState() === "running") await adapter.stop();
  });

  async function startExtended(): Promise<(path: string) => string> {
    const adapter = nativeCase.create({ ...TEST_CONFIG });
    running.push(adapter);
    adapter.registerRoute({ method: "GET", path: "/conduit", handler: () => ({ conduit: true }) });
    await adapter.initialize();
    nativeCase.extend(adapter.getFrameworkInstance());
    await adapter.start();
    const port = adapter.address()?.port;
    return (path) => `http://127.0.0.1:${port}${path}`;
  }

  it("serves the user's native route unwrapped, through the user's native middleware", async () => {
    const url = await startExtended();
    const response = await fetch(url("/native"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-native-middleware")).toBe("yes");
    expect(response.headers.get("x-request-id")).toBeNull();
    expect(await response.json()).toEqual({ native: true });
  });

  it("serves Conduit's routes in the envelope (through the user's middleware where the framework runs it first)", async () => {
    const url = await startExtended();
    const response = await fetch(url("/api/conduit"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-native-middleware")).toBe(nativeCase.wrapsConduitRoutes ? "yes" : null);
    const body = await response.json();
    expect(body.data).toEqual({ conduit: true });
    expect(body.metadata.requestId).toBe(response.headers.get("x-request-id"));
  });

  it("answers an unknown path with Conduit's 404 envelope", async () => {
    const url = await startExtended();
    const response = await fetch(url("/nowhere"));
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await response.json()).error.code).toBe("ROUTE_NOT_FOUND");
  });
});
