import { describe, expect, it } from "vitest";
import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { createTestApp } from "../../testing/test-kit.js";
import { ANSWERED, type MiddlewareHooks, PASSED_ON, TAKES_PART, middlewareFromHooks } from "./middleware-hooks.js";
import { MiddlewareStack } from "./middleware-stack.js";

/** A hook-built middleware that records when each of its steps runs. */
function traced(name: string, log: string[], overrides: MiddlewareHooks = {}): MiddlewareDefinition {
  return middlewareFromHooks(
    { name },
    {
      before: () => {
        log.push(`${name}:before`);
        return TAKES_PART;
      },
      after: () => {
        log.push(`${name}:after`);
      },
      failed: (_ctx, error) => {
        log.push(`${name}:failed:${(error as Error).message}`);
        throw error;
      },
      ...overrides,
    },
  );
}

/** An ordinary `async (ctx, next)` middleware, as a user writes it. */
function plain(name: string, log: string[]): MiddlewareDefinition {
  return {
    name,
    handler: async (_ctx, next) => {
      log.push(`${name}:in`);
      try {
        await next();
      } finally {
        log.push(`${name}:out`);
      }
    },
  };
}

const ctx = {} as ServerContext;

describe("hook-built middleware run fused", () => {
  it("nest like await next() frames, user middleware in between keeping its place", async () => {
    const log: string[] = [];
    const chain = [traced("a", log), traced("b", log), plain("user", log), traced("c", log)];
    await MiddlewareStack.run(chain, ctx, async () => {
      log.push("handler");
    });
    expect(log).toEqual(["a:before", "b:before", "user:in", "c:before", "handler", "c:after", "user:out", "b:after", "a:after"]);
  });

  it("an error reaches the failed step of every outer hook, innermost first; one may recover", async () => {
    const log: string[] = [];
    const recovering = traced("outer", log, {
      failed: (_ctx, error) => {
        log.push(`outer:recovered:${(error as Error).message}`);
      },
    });
    const chain = [recovering, traced("middle", log), traced("inner", log)];
    await MiddlewareStack.run(chain, ctx, async () => {
      throw new Error("boom");
    });
    expect(log).toEqual([
      "outer:before",
      "middle:before",
      "inner:before",
      "inner:failed:boom",
      "middle:failed:boom",
      "outer:recovered:boom",
    ]);
  });

  it("a throwing before or after fails only the hooks outside it; a passed-on one takes no part", async () => {
    const log: string[] = [];
    const throwingBefore = traced("gate", log, {
      before: () => {
        throw new Error("refused");
      },
    });
    const passing = traced("headers", log, { before: () => PASSED_ON });
    const first = MiddlewareStack.run([traced("outer", log), passing, throwingBefore, traced("inner", log)], ctx, async () => {
      log.push("handler");
    });
    await expect(first).rejects.toThrow("refused");
    expect(log).toEqual(["outer:before", "outer:failed:refused"]);

    log.length = 0;
    const throwingAfter = traced("compress", log, {
      after: () => Promise.reject(new Error("compression failed")),
    });
    await expect(MiddlewareStack.run([traced("outer", log), throwingAfter], ctx, async () => {})).rejects.toThrow("compression failed");
    expect(log).toEqual(["outer:before", "compress:before", "outer:failed:compression failed"]);
  });

  it("an answering before skips the rest of the chain; async befores are awaited in order", async () => {
    const log: string[] = [];
    const slow = traced("slow", log, {
      before: async (): Promise<typeof TAKES_PART> => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push("slow:before");
        return TAKES_PART;
      },
    });
    const preflight = traced("preflight", log, { before: () => ANSWERED });
    await MiddlewareStack.run([slow, traced("next", log), preflight, traced("inner", log)], ctx, async () => {
      log.push("handler");
    });
    expect(log).toEqual(["slow:before", "next:before", "next:after", "slow:after"]);
  });

  it("a built-in whose handler was wrapped runs as the wrapper says", async () => {
    const log: string[] = [];
    const builtIn = traced("built-in", log);
    const wrapped: MiddlewareDefinition = {
      ...builtIn,
      handler: (context, next) => {
        log.push("wrapper");
        return builtIn.handler(context, next);
      },
    };
    await MiddlewareStack.run([wrapped], ctx, async () => {
      log.push("handler");
    });
    expect(log).toEqual(["wrapper", "built-in:before", "handler", "built-in:after"]);
  });

  it("the default stack around a user middleware: headers, errors and order as before", async () => {
    const { adapter, request } = createTestApp({
      defaultMiddleware: true,
      routes: [{ method: "GET", path: "/fail", handler: () => Promise.reject(new Error("handler broke")) }],
    });
    const seen: string[] = [];
    adapter.registerMiddleware({
      name: "between",
      order: 2.5,
      handler: async (context, next) => {
        // Security headers (order 2) already ran; compression (5) and the error step's envelope not yet.
        seen.push(String(context.response.headers["x-frame-options"]));
        await next();
      },
    });
    const failed = await request({ url: "/api/fail" });
    expect(failed.status).toBe(500);
    expect(seen).toEqual(["DENY"]);
    expect(failed.headers["x-frame-options"]).toBe("DENY");
    expect(failed.headers["x-response-time"]).toMatch(/ms$/);
    expect(failed.json<{ error: { code: string } }>().error.code).toBe("HANDLER_ERROR");
  });
});
