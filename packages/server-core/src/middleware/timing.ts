import { performance } from "../core/pipeline/clock.js";
import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";

export interface TimingOptions {
  /** Header with the duration, e.g. `12.34ms` (default `X-Response-Time`). */
  headerName?: string;
  /** Adds `Server-Timing: total;dur=…` (default true). */
  serverTiming?: boolean;
}

/**
 * Timing (order 0): `X-Response-Time` and `Server-Timing`, on errors too. For streams the
 * duration is the time until the response starts (headers cannot follow the body).
 *
 * @example
 * adapter.registerMiddleware(createTimingMiddleware());
 * // → X-Response-Time: 1.23ms, Server-Timing: total;dur=1.23
 */
export function createTimingMiddleware(options: TimingOptions = {}): MiddlewareDefinition {
  const headerName = (options.headerName ?? "X-Response-Time").toLowerCase();
  const serverTiming = options.serverTiming ?? true;
  const stamp = (ctx: ServerContext) => {
    // Measured from the request's arrival in the core, so it covers every middleware.
    const duration = (performance.now() - ctx.startTime).toFixed(2);
    ctx.response.headers[headerName] = `${duration}ms`;
    if (serverTiming) ctx.response.headers["server-timing"] = `total;dur=${duration}`;
  };
  return middlewareFromHooks(
    { name: "timing", order: 0 },
    {
      after: stamp,
      failed: (ctx, error) => {
        stamp(ctx);
        throw error;
      },
    },
  );
}
