import * as expressAdapter from "@conduit-ai/adapter-express";
import type { ConduitFastifyApp, FastifyServerAdapter } from "@conduit-ai/adapter-fastify";
import type { ConduitHonoApp } from "@conduit-ai/adapter-hono";
import { type BaseServerAdapter, type PathParams, type ServerContext, createServer, defineRoute } from "@conduit-ai/server-core";
import type { Express } from "express";
import type Koa from "koa";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { TEST_CONFIG } from "./harness.js";

/**
 * Type-level behavior, checked by `tsc` (the `typecheck` target compiles this file) and run as
 * tests for the values. Each `@ts-expect-error` fails the type check when the error goes away.
 */
describe("createServer types", () => {
  it("types getFrameworkInstance() as the framework's own app, keyed by `framework`", async () => {
    const hono = await createServer(undefined, { config: TEST_CONFIG });
    const express = await createServer(undefined, { framework: "express", config: TEST_CONFIG });
    const fastify = await createServer(undefined, { framework: "fastify", config: TEST_CONFIG });
    const koa = await createServer(undefined, { framework: "koa", config: TEST_CONFIG });
    for (const server of [hono, express, fastify, koa]) await server.initialize();
    expectTypeOf(hono.getFrameworkInstance()).toEqualTypeOf<ConduitHonoApp>();
    expectTypeOf(express.getFrameworkInstance()).toEqualTypeOf<Express>();
    expectTypeOf(fastify.getFrameworkInstance()).toEqualTypeOf<ConduitFastifyApp>();
    expectTypeOf(koa.getFrameworkInstance()).toEqualTypeOf<Koa>();
    // Framework-specific APIs type-check without casts.
    express.getFrameworkInstance().get("/native", (_request, response) => void response.json({}));
    fastify.getFrameworkInstance().addHook("onRequest", async () => undefined);
    hono.getFrameworkInstance().get("/native", (c) => c.json({ native: true }));
  });

  it("returns the given adapter's own class for a statically imported adapter", async () => {
    const server = await createServer(undefined, { adapter: expressAdapter, config: TEST_CONFIG });
    expectTypeOf(server).toEqualTypeOf<expressAdapter.ExpressServerAdapter>();
    expectTypeOf(server.framework).toEqualTypeOf<"express">();
  });

  it("keeps an unknown framework out", () => {
    // @ts-expect-error not a ServerFramework
    void createServer(undefined, { framework: "nest" }).catch(() => undefined);
  });
});

describe("route types", () => {
  it("infers ctx.params from the path literal", () => {
    expectTypeOf<PathParams<"/users/:id/posts/:postId">>().toEqualTypeOf<{ id: string; postId: string }>();
    expectTypeOf<PathParams<"/static">>().toEqualTypeOf<{}>();
    expectTypeOf<PathParams<string>>().toEqualTypeOf<Record<string, string>>();
    const server = {} as BaseServerAdapter<unknown>;
    const register = () =>
      server.registerRoute({
        method: "GET",
        path: "/users/:id",
        handler: (ctx) => {
          expectTypeOf(ctx.params.id).toEqualTypeOf<string>();
          // @ts-expect-error no such parameter in the path
          return ctx.params.name;
        },
      });
    void register;
    defineRoute({
      method: "GET",
      path: "/orgs/:org/members/:member",
      handler: (ctx) => expectTypeOf(ctx.params).toEqualTypeOf<{ org: string; member: string }>(),
    });
  });

  it("lets a params schema override the path's strings, and types body and query from their schemas", () => {
    defineRoute({
      method: "POST",
      path: "/items/:id",
      schema: {
        params: z.object({ id: z.coerce.number() }),
        body: z.object({ name: z.string() }),
        query: z.object({ dryRun: z.stringbool().optional() }),
      },
      handler: (ctx) => {
        expectTypeOf(ctx.params.id).toEqualTypeOf<number>();
        expectTypeOf(ctx.body).toEqualTypeOf<{ name: string }>();
        expectTypeOf(ctx.query.dryRun).toEqualTypeOf<boolean | undefined>();
      },
    });
  });

  it("types ctx.user as AuthenticatedUser (extended by declaration merging, see readme-snippets.test.ts)", () => {
    expectTypeOf<ServerContext["user"]>().toEqualTypeOf<import("@conduit-ai/server-core").AuthenticatedUser | undefined>();
    expectTypeOf<FastifyServerAdapter["framework"]>().toEqualTypeOf<"fastify">();
  });
});
