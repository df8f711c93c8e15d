/**
 * What the `same-work` ecosystem servers (stack-same-work.ts) share so that each does what
 * Conduit's default stack does, no more: Conduit's security headers and CORS exposure, its
 * request-id rule, its one `request completed` line (same fields, same buffered destination,
 * never a header) and its very rate-limit store objects behind each ecosystem's limiter.
 */
import { randomUUID } from "node:crypto";
import { MemoryRateLimitStore, RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { SAFE_REQUEST_ID, redactedUrl } from "@conduit-ai/server-core/internal";
import type { Redis } from "ioredis";
import { type Logger, pino } from "pino";
import { RATE_LIMIT, WINDOW_MS } from "./stack-ecosystem.js";

type RateLimitStore = MemoryRateLimitStore | RedisRateLimitStore;

/** Conduit's default `cors.exposedHeaders` (server-core config defaults). */
export const EXPOSED_HEADERS = ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"];

/**
 * helmet (express), koa-helmet and @fastify/helmet configured to Conduit's three headers over
 * plain HTTP: `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: strict-origin-when-cross-origin` (no HSTS over HTTP, as Conduit).
 */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  strictTransportSecurity: false,
  xContentTypeOptions: true,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: "deny" },
  xPermittedCrossDomainPolicies: false,
  // The frameworks that send X-Powered-By are told not to, so there is nothing to remove.
  xPoweredBy: false,
  xXssProtection: false,
} as const;

/** hono/secure-headers to the same three headers. */
export const HONO_SECURE_HEADERS = {
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: "strict-origin-when-cross-origin",
  strictTransportSecurity: false,
  xContentTypeOptions: true,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: "DENY",
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/** Conduit's rule: a safe incoming `x-request-id` is kept, else `req-<uuid>`. */
export function requestIdFrom(incoming: unknown): string {
  return typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : `req-${randomUUID()}`;
}

/** The URL as Conduit logs it: credential query values replaced (`?api_key=[REDACTED]`). */
export function loggableUrl(url: string): string {
  const mark = url.indexOf("?");
  if (mark === -1) return url;
  return redactedUrl(url.slice(0, mark), Object.fromEntries(new URLSearchParams(url.slice(mark + 1))));
}

/** The fields of Conduit's `request completed` line, in its order (requestId comes from the logger's bindings). */
export function requestLine(
  method: string | undefined,
  url: string | undefined,
  clientAddress: string | undefined,
  status: number,
  durationMs: number,
) {
  return { method, url: loggableUrl(url ?? "/"), clientAddress, status, durationMs: Math.round(durationMs * 100) / 100 };
}

export const REQUEST_COMPLETED = "request completed";

/**
 * pino as Conduit's logger writes: no `pid`/`hostname`, to stdout through a 4 KB buffer
 * written asynchronously and flushed every 100 ms (server-core's default destination).
 */
export function sameWorkLogger(): Logger {
  return pino({ level: "info", base: null }, sameWorkDestination());
}

export function sameWorkDestination() {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });
}

/** The store Conduit's limiter uses on this side: a fresh memory store, or Redis under its own prefix. */
export function conduitStore(redis: Redis | undefined, prefix: string): RateLimitStore {
  return redis ? new RedisRateLimitStore(redis, { prefix: `${prefix}same-work:` }) : new MemoryRateLimitStore();
}

/** Conduit's default limiter counts in fixed windows. */
const CHECK = { maxRequests: RATE_LIMIT, windowMs: WINDOW_MS, subWindows: 1 };

/** One counted request on the store, as Conduit's limiter counts it. */
export const hit = (store: RateLimitStore, key: string) => store.hitWindow(key, CHECK);

/** The store behind express-rate-limit's and hono-rate-limiter's `Store` interface (`increment` is all they call per request). */
export function incrementStore(store: RateLimitStore) {
  return {
    localKeys: store instanceof MemoryRateLimitStore,
    async increment(key: string) {
      const result = await hit(store, key);
      return { totalHits: result.count, resetTime: new Date(Date.now() + result.resetMs) };
    },
    async decrement() {},
    async resetKey() {},
  };
}

/** The store as @fastify/rate-limit's custom `store` class (`incr` with a callback). */
export function fastifyStoreClass(store: RateLimitStore) {
  return class ConduitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      hit(store, key).then(
        (result) => callback(null, { current: result.count, ttl: result.resetMs }),
        (error: Error) => callback(error),
      );
    }
    child(): this {
      return this;
    }
  };
}

/** Conduit's `X-RateLimit-*` headers from a counted request (reset: Unix seconds). */
export function rateLimitHeaders(count: number, resetMs: number): Record<string, string> {
  return {
    "x-ratelimit-limit": String(RATE_LIMIT),
    "x-ratelimit-remaining": String(Math.max(0, RATE_LIMIT - count)),
    "x-ratelimit-reset": String(Math.ceil((Date.now() + resetMs) / 1000)),
  };
}
