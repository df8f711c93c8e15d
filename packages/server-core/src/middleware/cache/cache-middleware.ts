import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { matchesPathPrefix } from "../path-prefix.js";
import type { CacheEntry, CacheStore } from "./cache-store.js";
import { MemoryCacheStore } from "./memory-cache-store.js";

export interface CacheOptions {
  /** Lifetime of an entry (required). */
  ttlMs: number;
  /** Entries of the default in-memory LRU (default 1000). */
  maxSize?: number;
  /** Builds the key; the user scope is appended to it anyway. */
  keyGenerator?: (ctx: ServerContext) => string;
  /** Cached methods (default `GET`). */
  methods?: string[];
  /** Path prefixes cached (default all), with and without `basePath`. */
  paths?: string[];
  excludePaths?: string[];
  basePath?: string;
  /** Default an in-memory LRU of `maxSize`; `RedisCacheStore` shares entries across processes. */
  store?: CacheStore;
  /** The query string is part of the key (default true). */
  includeQuery?: boolean;
  /** Lifetime per path prefix, e.g. `{ "/tools": 300_000 }`. */
  ttlByPath?: Record<string, number>;
  /**
   * Called when the store fails (Redis down). The request is then served without the cache
   * (`X-Cache: BYPASS`): a cache degrades, it never fails a request.
   */
  onStoreError?: (error: unknown, ctx: ServerContext) => void;
  /** Authenticated requests (`ctx.user`): cached per user (default) or never. */
  authenticated?: "per-user" | "never";
  order?: number;
}

/** Headers that belong to one request and must never be replayed from the cache. */
const PER_REQUEST_HEADERS =
  /^(x-request-id|set-cookie|x-response-time|server-timing|x-ratelimit-.*|retry-after|access-control-.*|vary|content-length|content-encoding|x-cache.*|cache-control|connection|date|deprecation|sunset|link|x-deprecation-notice)$/;

function queryKey(ctx: ServerContext): string {
  const entries = Object.entries(ctx.query as Record<string, string | string[]>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0
    ? ""
    : `?${new URLSearchParams(entries.flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => [key, String(item)]))).toString()}`;
}

/** Credentials the cache cannot attribute to a user (auth has not run): such requests bypass the cache. */
function carriesCredentials(ctx: ServerContext): boolean {
  return ctx.header("authorization") !== undefined || ctx.header("x-api-key") !== undefined || ctx.header("cookie") !== undefined;
}

/** A cached envelope carries the first request's id; the replay gets this request's. */
function withRequestId(body: string, requestId: string): string {
  if (!body.startsWith("{")) return body;
  try {
    const parsed = JSON.parse(body) as { metadata?: Record<string, unknown> };
    if (!parsed.metadata || typeof parsed.metadata !== "object") return body;
    parsed.metadata.requestId = requestId;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

/**
 * Response cache (LRU, order 60 — after auth so `ctx.user` is known). Successful
 * (2xx), non-streamed answers of `methods` are stored for `ttlMs` (or `ttlByPath`);
 * `X-Cache: HIT|MISS`, `X-Cache-Age` (seconds) and `Cache-Control` tell clients. Errors
 * and streams are never stored; authenticated responses are keyed by user (`private`),
 * and a request with credentials but no `ctx.user` is not cached at all. A failing store
 * (Redis down) is bypassed (`X-Cache: BYPASS`), never an error.
 *
 * @example
 * adapter.registerMiddleware(createCacheMiddleware({ ttlMs: 60_000, paths: ["/tools"], ttlByPath: { "/tools/search": 10_000 } }));
 */
export function createCacheMiddleware(options: CacheOptions): MiddlewareDefinition {
  const store = options.store ?? new MemoryCacheStore(options.maxSize ?? 1000);
  const methods = new Set((options.methods ?? ["GET"]).map((method) => method.toUpperCase()));
  const basePath = options.basePath ?? "";
  const includeQuery = options.includeQuery ?? true;
  const ttlByPath = Object.entries(options.ttlByPath ?? {}).sort(([a], [b]) => b.length - a.length);
  const ttlFor = (path: string) => ttlByPath.find(([prefix]) => matchesPathPrefix(path, [prefix], basePath))?.[1] ?? options.ttlMs;
  return {
    name: "cache",
    order: options.order ?? 60,
    handler: async (ctx, next) => {
      if (!methods.has(ctx.method)) return next();
      if (options.paths && !matchesPathPrefix(ctx.path, options.paths, basePath)) return next();
      if (options.excludePaths && matchesPathPrefix(ctx.path, options.excludePaths, basePath)) return next();
      const user = ctx.user;
      if (user ? options.authenticated === "never" : carriesCredentials(ctx)) return next();
      const base = options.keyGenerator?.(ctx) ?? `${ctx.method}:${ctx.path}${includeQuery ? queryKey(ctx) : ""}`;
      const key = user ? `${base}|user:${user.id}` : base;
      const visibility = user ? "private" : "public";
      const now = Date.now();
      let cached: CacheEntry | undefined;
      try {
        cached = await store.get(key);
      } catch (error) {
        options.onStoreError?.(error, ctx);
        ctx.setHeader("x-cache", "BYPASS");
        return next();
      }
      if (cached && cached.createdAt + cached.ttlMs > now) {
        for (const [name, value] of Object.entries(cached.headers ?? {})) ctx.setHeader(name, value);
        ctx.response.status = cached.status;
        ctx.response.body = withRequestId(cached.data, ctx.requestId);
        ctx.response.streaming = false;
        const ageSeconds = Math.floor((now - cached.createdAt) / 1000);
        ctx.setHeader("x-cache", "HIT");
        ctx.setHeader("x-cache-age", String(ageSeconds));
        ctx.setHeader("cache-control", `${visibility}, max-age=${Math.max(0, Math.floor((cached.createdAt + cached.ttlMs - now) / 1000))}`);
        return;
      }
      await next();
      const response = ctx.response;
      const body = response.body;
      if (response.streaming || response.status < 200 || response.status >= 300) return;
      // Binary bodies are not cached: entries are text so every store can hold them.
      if (typeof body !== "string") return;
      if (response.headers["set-cookie"] !== undefined || /no-store|private/.test(String(response.headers["cache-control"] ?? ""))) return;
      const ttlMs = ttlFor(ctx.path);
      const headers = Object.create(null) as Record<string, string>;
      for (const [name, value] of Object.entries(response.headers)) {
        if (!PER_REQUEST_HEADERS.test(name) && typeof value === "string") headers[name] = value;
      }
      const entry: CacheEntry = { data: body, status: response.status, createdAt: now, ttlMs, headers };
      try {
        await store.set(key, entry);
      } catch (error) {
        options.onStoreError?.(error, ctx);
        ctx.setHeader("x-cache", "BYPASS");
        return;
      }
      ctx.setHeader("x-cache", "MISS");
      ctx.setHeader("x-cache-age", "0");
      if (response.headers["cache-control"] === undefined)
        ctx.setHeader("cache-control", `${visibility}, max-age=${Math.floor(ttlMs / 1000)}`);
    },
  };
}
