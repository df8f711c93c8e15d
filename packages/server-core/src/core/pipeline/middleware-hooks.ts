import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition, Next } from "../../contracts/middleware.js";

/** `before` took part: its `after` (or `failed`) runs once the rest of the chain is done. */
export const TAKES_PART = 0;
/** `before` passed the request on without taking part: its `after`/`failed` do not run for it. */
export const PASSED_ON = 1;
/** `before` answered the request itself: the rest of the chain (inner middleware, handler) is skipped. */
export const ANSWERED = 2;

type BeforeResult = typeof TAKES_PART | typeof PASSED_ON | typeof ANSWERED;

/**
 * A built-in middleware written as synchronous steps around the rest of the chain instead of an
 * `async (ctx, next) => { await next() }` frame. Each step may return a promise (then awaited:
 * an async origin check, a Redis-backed limiter, compressing a body) — the common case returns none.
 */
export interface MiddlewareHooks {
  /** Before the rest of the chain; a throw fails the request like a middleware throwing before `next()`. */
  before?: (ctx: ServerContext) => BeforeResult | Promise<BeforeResult>;
  /** After the rest of the chain succeeded. */
  after?: (ctx: ServerContext) => void | Promise<void>;
  /** After the rest of the chain failed with `error`: throws to pass an error on, returns to recover. */
  failed?: (ctx: ServerContext, error: unknown) => void | Promise<void>;
}

/** Hooks by the handler built from them: a handler someone wrapped or replaced is run as written. */
const hooksByHandler = new WeakMap<MiddlewareDefinition["handler"], MiddlewareHooks>();

/** Bits of a number: a group longer than this is split (never the case for the default stack). */
export const MAX_FUSED_HOOKS = 30;

/**
 * A middleware from hooks. Its `handler` is the ordinary `(ctx, next) => Promise` form (run alone,
 * wrapped, or next to user middleware it behaves the same); the stack recognises the hooks and runs
 * consecutive ones in one frame (`runHooks`).
 *
 * @example
 * const poweredBy = middlewareFromHooks({ name: "powered-by", order: 2 }, { before: (ctx) => { ctx.setHeader("x-powered-by", "conduit"); return PASSED_ON; } });
 */
export function middlewareFromHooks<T extends Omit<MiddlewareDefinition, "handler">>(
  definition: T,
  hooks: MiddlewareHooks,
): T & Pick<MiddlewareDefinition, "handler"> {
  const single = [hooks];
  const handler: MiddlewareDefinition["handler"] = (ctx, next) => runHooks(single, ctx, next);
  hooksByHandler.set(handler, hooks);
  return { ...definition, handler };
}

/** The hooks a middleware was built from, when its handler is still theirs. */
export function hooksOf(middleware: MiddlewareDefinition): MiddlewareHooks | undefined {
  return hooksByHandler.get(middleware.handler);
}

/**
 * Runs `hooks` as nested middleware (the first outermost) around `inner`, in one async frame:
 * every `before` in order, then `inner`, then `after` (or `failed` while an error is in flight)
 * in reverse order for the hooks that took part — the onion of `await next()` frames, unrolled.
 */
export async function runHooks(hooks: readonly MiddlewareHooks[], ctx: ServerContext, inner: Next): Promise<void> {
  // Which hooks took part, one bit each: no array per request.
  let entered = 0;
  let failure: { error: unknown } | undefined;
  let index = 0;
  try {
    for (; index < hooks.length; index++) {
      const before = (hooks[index] as MiddlewareHooks).before;
      if (before === undefined) {
        entered |= 1 << index;
        continue;
      }
      let outcome = before(ctx);
      if (outcome instanceof Promise) outcome = await outcome;
      if (outcome === ANSWERED) break;
      if (outcome === TAKES_PART) entered |= 1 << index;
    }
    if (index === hooks.length) await inner();
  } catch (error) {
    failure = { error };
  }
  for (let position = Math.min(index, hooks.length - 1); position >= 0; position--) {
    if ((entered & (1 << position)) === 0) continue;
    const { after, failed } = hooks[position] as MiddlewareHooks;
    try {
      if (failure === undefined) {
        if (after === undefined) continue;
        const done = after(ctx);
        if (done instanceof Promise) await done;
      } else if (failed !== undefined) {
        const error = failure.error;
        failure = undefined;
        const done = failed(ctx, error);
        if (done instanceof Promise) await done;
      }
    } catch (error) {
      failure = { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
