import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition, Next } from "../../contracts/middleware.js";
import { ServerRateLimitError } from "../../errors/server-errors.js";
import { matchesPathPrefix, prefixFilters } from "../path-prefix.js";
import { clientKey } from "./client-key.js";
import { MemoryRateLimitStore } from "./memory-rate-limit-store.js";
import type { RateLimitStore } from "./rate-limit-store.js";

/** What `onRateLimitExceeded` and the headers are built from. */
export interface RateLimitInfo {
  key: string;
  limit: number;
  remaining: number;
  /** Milliseconds until capacity frees up. */
  resetMs: number;
}

export interface RateLimitOptions {
  maxRequests: number;
  windowMs: number;
  /** Message of the 429 envelope. */
  message?: string;
  /** Path prefixes never limited (with and without `basePath`). */
  skipPaths?: string[];
  basePath?: string;
  /** Who is counted (default the client address). */
  keyGenerator?: (ctx: ServerContext) => string | Promise<string>;
  /** Count by the first `X-Forwarded-For` entry (only behind a proxy you control). */
  trustProxy?: boolean;
  /** Called before the 429 is sent (metrics, alerts). */
  onRateLimitExceeded?: (ctx: ServerContext, info: RateLimitInfo) => void | Promise<void>;
  /** Default a fresh in-memory store; `RedisRateLimitStore` shares one limit across processes. */
  store?: RateLimitStore;
  order?: number;
}

export interface SlidingWindowRateLimitOptions extends RateLimitOptions {
  /** Sub-windows the window slides by (default 10). */
  subWindows?: number;
}

/** `X-RateLimit-*` on every limited response; the 429 also gets `Retry-After` (through the error). */
export function setRateLimitHeaders(ctx: ServerContext, info: RateLimitInfo): void {
  ctx.setHeader("x-ratelimit-limit", String(info.limit));
  ctx.setHeader("x-ratelimit-remaining", String(Math.max(0, Math.floor(info.remaining))));
  // Unix time in seconds at which capacity frees up.
  ctx.setHeader("x-ratelimit-reset", String(Math.ceil((Date.now() + info.resetMs) / 1000)));
}

/** Throws the `RATE_LIMIT_EXCEEDED` error after the hook ran. */
export async function rejectRequest(ctx: ServerContext, info: RateLimitInfo, options: Pick<RateLimitOptions, "message" | "onRateLimitExceeded">): Promise<never> {
  await options.onRateLimitExceeded?.(ctx, info);
  throw new ServerRateLimitError(options.message ?? "Too many requests, please try again later", {
    retryAfterMs: Math.max(1000, info.resetMs),
    details: { limit: info.limit },
  });
}

function windowMiddleware(name: string, options: RateLimitOptions, subWindows: number): MiddlewareDefinition {
  if (!(options.maxRequests > 0) || !(options.windowMs > 0)) throw new RangeError("maxRequests and windowMs must be positive");
  const store = options.store ?? new MemoryRateLimitStore();
  const skipPaths = options.skipPaths ?? [];
  const basePath = options.basePath ?? "";
  const keyOf = options.keyGenerator ?? ((ctx: ServerContext) => clientKey(ctx, options.trustProxy));
  const check = { maxRequests: options.maxRequests, windowMs: options.windowMs, subWindows };
  const limit = async (ctx: ServerContext, next: Next): Promise<void> => {
    const key = await keyOf(ctx);
    const result = await store.hitWindow(key, check);
    const info: RateLimitInfo = { key, limit: options.maxRequests, remaining: options.maxRequests - result.count, resetMs: result.resetMs };
    setRateLimitHeaders(ctx, info);
    if (!result.allowed) await rejectRequest(ctx, info, options);
    await next();
  };
  return {
    name,
    order: options.order ?? 4,
    // Out of the skipped paths' chains; the check below covers a `basePath` other than the server's.
    excludePaths: prefixFilters(skipPaths),
    handler: (ctx, next) => (ctx.method === "OPTIONS" || matchesPathPrefix(ctx.path, skipPaths, basePath) ? next() : limit(ctx, next)),
  };
}

/**
 * Fixed-window rate limit: at most `maxRequests` per `windowMs` per key, windows aligned
 * to the clock. Headers `X-RateLimit-Limit/Remaining/Reset`; over the limit → 429
 * `RATE_LIMIT_EXCEEDED` with `Retry-After`.
 *
 * @example
 * adapter.registerMiddleware(createRateLimitMiddleware({ maxRequests: 100, windowMs: 15 * 60_000, skipPaths: ["/health"] }));
 */
export function createRateLimitMiddleware(options: RateLimitOptions): MiddlewareDefinition {
  return windowMiddleware("rate-limit", options, 1);
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
  return windowMiddleware("sliding-window-rate-limit", options, subWindows);
}
