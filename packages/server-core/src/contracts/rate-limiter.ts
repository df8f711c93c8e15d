import type { ServerContext } from "./context.js";
import type { RateLimitStore } from "./rate-limit-store.js";
import type { DependencyHealth } from "./runtime.js";

/** What `onRateLimitExceeded` and the headers are built from. */
export interface RateLimitInfo {
  key: string;
  limit: number;
  remaining: number;
  /** Milliseconds until capacity frees up. */
  resetMs: number;
}

/** The result of counting one request or message. */
export interface RateLimitOutcome {
  allowed: boolean;
  /** Undefined when the store failed and the limiter is open (the request passed uncounted). */
  info: RateLimitInfo | undefined;
}

/**
 * One budget per client, usable by every surface: the HTTP middleware counts requests, the
 * WebSocket surface counts upgrades and the messages that start work — same store, same key.
 *
 * @example
 * const limiter = createRateLimiter({ maxRequests: 60, windowMs: 60_000, store, failOpen: false });
 * const outcome = await limiter.consume(ctx); // throws 503 STORE_UNAVAILABLE when closed and the store is down
 * if (!outcome.allowed) await limiter.reject(ctx, outcome.info!);
 */
export interface RateLimiter {
  readonly maxRequests: number;
  readonly failOpen: boolean;
  readonly store: RateLimitStore;
  /** OPTIONS and `skipPaths` are never counted. */
  skips(ctx: Pick<ServerContext, "method" | "path">): boolean;
  consume(ctx: ServerContext): Promise<RateLimitOutcome>;
  /** Runs `onRateLimitExceeded` and throws the 429 `RATE_LIMIT_EXCEEDED` error. */
  reject(ctx: ServerContext, info: RateLimitInfo): Promise<never>;
  /** The store's readiness entry; undefined for stores that cannot fail (memory). */
  health(): Promise<DependencyHealth | undefined>;
}
