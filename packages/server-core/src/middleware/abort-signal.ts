import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";

/** `ctx.state` key holding why the request was aborted (`STREAM_ABORTED` or `TIMEOUT` error). */
export const ABORT_REASON_STATE_KEY = "conduit.abortReason";

export interface AbortSignalOptions {
  /** Called once when the request is aborted: client disconnect or timeout. */
  onAbort?: (reason: unknown, ctx: ServerContext) => void;
}

/**
 * The core gives every request `ctx.abortSignal` / `ctx.abortController`, aborted with a
 * `StreamAbortedError` when the client disconnects and a `TimeoutError` when the request
 * times out. This middleware is safe to add anywhere: it records the reason in
 * `ctx.state` (see `abortReason`) and calls `onAbort`; it never aborts by itself.
 *
 * @example
 * adapter.registerMiddleware(createAbortSignalMiddleware({ onAbort: (reason) => metrics.aborted(reason) }));
 * // in a handler: runtime.stream(input, { signal: ctx.abortSignal })
 */
export function createAbortSignalMiddleware(options: AbortSignalOptions = {}): MiddlewareDefinition {
  return {
    name: "abort-signal",
    order: 0,
    handler: async (ctx, next) => {
      const signal = ctx.abortSignal;
      const record = () => {
        ctx.state[ABORT_REASON_STATE_KEY] = signal.reason;
        try {
          options.onAbort?.(signal.reason, ctx);
        } catch {
          // A failing hook must not turn an abort into a crash.
        }
      };
      if (signal.aborted) record();
      else signal.addEventListener("abort", record, { once: true });
      await next();
    },
  };
}

/**
 * Why this request was aborted, or undefined while it is not.
 *
 * @example
 * if (ctx.abortSignal.aborted) log.info({ reason: abortReason(ctx) }, "client left");
 */
export function abortReason(ctx: Pick<ServerContext, "abortSignal">): unknown {
  return ctx.abortSignal.aborted ? ctx.abortSignal.reason : undefined;
}
