import type { TrustProxyConfig } from "../../contracts/config.js";
import type { ServerContext } from "../../contracts/context.js";
import { compileTrustProxy } from "../../core/credentials/client-address.js";
import type { Logger } from "../../core/lifecycle/logger.js";
import { ServerRateLimitError } from "../../errors/server-errors.js";
import { matchesPathPrefix } from "../path-prefix.js";
import { clientKey } from "./client-key.js";
import { MemoryRateLimitStore } from "./memory-rate-limit-store.js";
import type { RateLimitStore, WindowResult } from "../../contracts/rate-limit-store.js";
import { StoreGuard } from "./store-guard.js";
import type { RateLimitInfo, RateLimitOutcome, RateLimiter } from "../../contracts/rate-limiter.js";

export type { RateLimitInfo, RateLimitOutcome, RateLimiter };

export interface RateLimiterOptions {
  maxRequests: number;
  windowMs: number;
  /** 1 = fixed window (default); more = a sliding window of that many sub-windows. */
  subWindows?: number;
  /** Message of the 429 envelope. */
  message?: string;
  /** Path prefixes never limited (with and without `basePath`). */
  skipPaths?: string[];
  basePath?: string;
  /** Who is counted (default the client address). */
  keyGenerator?: (ctx: ServerContext) => string | Promise<string>;
  /**
   * Which proxies to believe for the client address, when it should differ from the
   * server's `config.trustProxy` (proxy-addr semantics: a hop count, addresses/CIDRs, or a function).
   */
  trustProxy?: TrustProxyConfig;
  /** Called before the 429 is sent (metrics, alerts). */
  onRateLimitExceeded?: (ctx: ServerContext, info: RateLimitInfo) => void | Promise<void>;
  /** Default a fresh in-memory store; `RedisRateLimitStore` shares one limit across processes. */
  store?: RateLimitStore;
  /**
   * When the store fails (Redis down): `false` (default) answers 503 `STORE_UNAVAILABLE` with
   * `Retry-After`; `true` lets requests through uncounted and logs a warning.
   */
  failOpen?: boolean;
  /** Receives the store-down warning (and its recovery). */
  logger?: Pick<Logger, "warn" | "info">;
}

/** `X-RateLimit-*` on every limited response; the 429 also gets `Retry-After` (through the error). */
export function setRateLimitHeaders(ctx: ServerContext, info: RateLimitInfo): void {
  ctx.setHeader("x-ratelimit-limit", String(info.limit));
  ctx.setHeader("x-ratelimit-remaining", String(Math.max(0, Math.floor(info.remaining))));
  // Unix time in seconds at which capacity frees up.
  ctx.setHeader("x-ratelimit-reset", String(Math.ceil((Date.now() + info.resetMs) / 1000)));
}

/** The `RATE_LIMIT_EXCEEDED` error for `info`, thrown after the hook ran. */
export async function rejectRequest(
  ctx: ServerContext,
  info: RateLimitInfo,
  options: Pick<RateLimiterOptions, "message" | "onRateLimitExceeded">,
): Promise<never> {
  await options.onRateLimitExceeded?.(ctx, info);
  throw new ServerRateLimitError(options.message ?? "Too many requests, please try again later", {
    retryAfterMs: Math.max(1000, info.resetMs),
    details: { limit: info.limit },
  });
}

/**
 * A fixed- or sliding-window limiter over a store (see `RateLimiter`).
 *
 * @example
 * const limiter = createRateLimiter({ maxRequests: 100, windowMs: 15 * 60_000, store: new RedisRateLimitStore(client) });
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  if (!(options.maxRequests > 0) || !(options.windowMs > 0)) throw new RangeError("maxRequests and windowMs must be positive");
  const store = options.store ?? new MemoryRateLimitStore();
  const guard = new StoreGuard(store, options.failOpen ?? false, options.logger);
  const skipPaths = options.skipPaths ?? [];
  const basePath = options.basePath ?? "";
  const trust = options.trustProxy === undefined ? undefined : compileTrustProxy(options.trustProxy);
  const keyOf = options.keyGenerator ?? ((ctx: ServerContext) => clientKey(ctx, trust));
  const check = {
    maxRequests: options.maxRequests,
    windowMs: options.windowMs,
    subWindows: Math.max(1, Math.floor(options.subWindows ?? 1)),
  };
  const outcomeOf = (key: string, result: WindowResult): RateLimitOutcome => ({
    allowed: result.allowed,
    info: { key, limit: options.maxRequests, remaining: options.maxRequests - result.count, resetMs: result.resetMs },
  });
  // The in-memory store itself (not a subclass, which may override `hitWindow`) cannot fail and
  // answers at once: counted without the guard's promises.
  const immediate = store.constructor === MemoryRateLimitStore ? (store as MemoryRateLimitStore) : undefined;
  const consumeLater = async (pendingKey: string | Promise<string>): Promise<RateLimitOutcome> => {
    const key = await pendingKey;
    const result = await guard.call(() => store.hitWindow(key, check));
    if (result === undefined) return { allowed: true, info: undefined };
    return outcomeOf(key, result);
  };
  return {
    maxRequests: options.maxRequests,
    failOpen: guard.failOpen,
    store,
    skips: (ctx) => ctx.method === "OPTIONS" || matchesPathPrefix(ctx.path, skipPaths, basePath),
    consume(ctx) {
      try {
        const key = keyOf(ctx);
        if (immediate && typeof key === "string") return Promise.resolve(outcomeOf(key, immediate.hitWindowNow(key, check)));
        return consumeLater(key);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    reject: (ctx, info) => rejectRequest(ctx, info, options),
    health: () => guard.health(),
  };
}
