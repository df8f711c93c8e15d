import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { PASSED_ON, middlewareFromHooks } from "../../core/pipeline/middleware-hooks.js";
import { prefixFilters } from "../path-prefix.js";
import { type RateLimiter, type RateLimiterOptions, createRateLimiter, setRateLimitHeaders } from "./rate-limiter.js";

export { type RateLimitInfo, rejectRequest, setRateLimitHeaders } from "./rate-limiter.js";

export interface RateLimitOptions extends Omit<RateLimiterOptions, "subWindows"> {
  order?: number;
}

export interface SlidingWindowRateLimitOptions extends RateLimitOptions {
  /** Sub-windows the window slides by (default 10). */
  subWindows?: number;
}

/**
 * The middleware of a limiter: headers on every counted response, 429 over the limit, 503 when
 * closed and the store is down. Routes with `rateLimit: false` are not counted.
 */
export function rateLimitMiddleware(
  name: string,
  limiter: RateLimiter,
  options: { skipPaths?: string[]; order?: number } = {},
): MiddlewareDefinition {
  const count = async (ctx: ServerContext): Promise<typeof PASSED_ON> => {
    const outcome = await limiter.consume(ctx);
    if (outcome.info) {
      setRateLimitHeaders(ctx, outcome.info);
      if (!outcome.allowed) await limiter.reject(ctx, outcome.info);
    }
    return PASSED_ON;
  };
  return middlewareFromHooks(
    {
      name,
      order: options.order ?? 4,
      // Out of the skipped paths' chains; `skips` covers a `basePath` other than the server's.
      excludePaths: prefixFilters(options.skipPaths ?? []),
    },
    {
      // A route that limits its own callers (per credential) opted out of the per-address limit: no promise, no frame.
      // An in-process forward was counted as the request that sent it.
      before: (ctx) => (ctx.route?.rateLimit === false || ctx.inProcess === true || limiter.skips(ctx) ? PASSED_ON : count(ctx)),
    },
  );
}

/**
 * Fixed-window rate limit: at most `maxRequests` per `windowMs` per key, windows aligned
 * to the clock. Headers `X-RateLimit-Limit/Remaining/Reset`; over the limit → 429
 * `RATE_LIMIT_EXCEEDED` with `Retry-After`. A failing store (Redis down) → 503
 * `STORE_UNAVAILABLE`, or the request passes uncounted with `failOpen: true`.
 *
 * @example
 * adapter.registerMiddleware(createRateLimitMiddleware({ maxRequests: 100, windowMs: 15 * 60_000, skipPaths: ["/health"] }));
 */
export function createRateLimitMiddleware(options: RateLimitOptions): MiddlewareDefinition {
  return rateLimitMiddleware("rate-limit", createRateLimiter({ ...options, subWindows: 1 }), options);
}

/**
 * Sliding-window rate limit: the window is `subWindows` slices and a request counts for
 * `windowMs` after it was admitted, so no burst of 2× the limit at a window boundary.
 *
 * @example
 * adapter.registerMiddleware(createSlidingWindowRateLimitMiddleware({ maxRequests: 60, windowMs: 60_000, subWindows: 12 }));
 */
export function createSlidingWindowRateLimitMiddleware(options: SlidingWindowRateLimitOptions): MiddlewareDefinition {
  const subWindows = Math.max(1, Math.floor(options.subWindows ?? 10));
  return rateLimitMiddleware("sliding-window-rate-limit", createRateLimiter({ ...options, subWindows }), options);
}
