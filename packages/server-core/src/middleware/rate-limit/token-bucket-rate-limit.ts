import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { compileTrustProxy } from "../../core/credentials/client-address.js";
import { clientKey } from "./client-key.js";
import { MemoryRateLimitStore } from "./memory-rate-limit-store.js";
import type { RateLimitStore } from "../../contracts/rate-limit-store.js";
import { StoreGuard } from "./store-guard.js";
import { type RateLimitOptions, rejectRequest, setRateLimitHeaders } from "./window-rate-limit.js";

export interface TokenBucketRateLimitOptions extends Omit<RateLimitOptions, "keyGenerator" | "skipPaths" | "basePath"> {
  /** Limit per role; a user with several roles gets the highest. */
  roleLimits?: Record<string, number>;
  /** Limit per user id; wins over roles. */
  userLimits?: Record<string, number>;
  /** Roles never limited (e.g. `admin`). */
  skipRoles?: string[];
  /** Default `user:<ctx.user.id>`, else `address:<client address>`. */
  keyGenerator?: (ctx: ServerContext) => string | Promise<string>;
  store?: RateLimitStore;
}

/** The bucket size for this request's user: user override, else the highest role limit, else `maxRequests`. */
export function limitFor(ctx: ServerContext, options: TokenBucketRateLimitOptions): number {
  const user = ctx.user;
  if (!user) return options.maxRequests;
  // Own entries only: a user id or role named `constructor` must not find Object.prototype's.
  const own = ownValue(options.userLimits, user.id);
  if (own !== undefined) return own;
  const roleLimits = (user.roles ?? [])
    .map((role) => ownValue(options.roleLimits, role))
    .filter((limit): limit is number => limit !== undefined);
  return roleLimits.length > 0 ? Math.max(...roleLimits) : options.maxRequests;
}

/**
 * The runtime's per-user limiter (token bucket): each user has `limit` tokens refilled
 * continuously at `limit / windowMs`, one per request; an empty bucket → 429. Place it
 * after authentication (default order 20) so `ctx.user` is known; anonymous requests
 * are counted by client address. A failing store → 503 `STORE_UNAVAILABLE` (or uncounted
 * with `failOpen: true`).
 *
 * @example
 * adapter.registerMiddleware(createTokenBucketRateLimitMiddleware({
 *   maxRequests: 60, windowMs: 60_000, roleLimits: { pro: 600 }, userLimits: { "user-1": 5 }, skipRoles: ["admin"],
 * }));
 */
export function createTokenBucketRateLimitMiddleware(options: TokenBucketRateLimitOptions): MiddlewareDefinition {
  if (!(options.maxRequests > 0) || !(options.windowMs > 0)) throw new RangeError("maxRequests and windowMs must be positive");
  const store = options.store ?? new MemoryRateLimitStore();
  const guard = new StoreGuard(store, options.failOpen ?? false, options.logger);
  const skipRoles = new Set(options.skipRoles ?? []);
  const trust = options.trustProxy === undefined ? undefined : compileTrustProxy(options.trustProxy);
  const keyOf = options.keyGenerator ?? ((ctx: ServerContext) => (ctx.user ? `user:${ctx.user.id}` : `address:${clientKey(ctx, trust)}`));
  return {
    name: "token-bucket-rate-limit",
    order: options.order ?? 20,
    handler: async (ctx, next) => {
      if (ctx.user?.roles?.some((role) => skipRoles.has(role))) return next();
      const limit = limitFor(ctx, options);
      const key = await keyOf(ctx);
      const result = await guard.call(() => store.takeToken(key, { capacity: limit, windowMs: options.windowMs }));
      if (result === undefined) return next();
      const info = { key, limit, remaining: result.tokens, resetMs: result.allowed ? result.resetMs : result.retryAfterMs };
      setRateLimitHeaders(ctx, info);
      if (!result.allowed) await rejectRequest(ctx, info, options);
      await next();
    },
  };
}

function ownValue(table: Record<string, number> | undefined, key: string): number | undefined {
  return table !== undefined && Object.hasOwn(table, key) && typeof table[key] === "number" ? table[key] : undefined;
}
