import type { HttpMethod } from "./http.js";

/**
 * What describes a route apart from its code (handler, schemas, middleware): the part a
 * request's context shows (`ctx.route`). Kept apart from `RouteDefinition` so the context's
 * contract does not depend on the route's, which depends on the context's.
 */
export interface RouteOptions {
  method: HttpMethod;
  /** Relative to `basePath` unless `absolute`; `:name` marks a parameter (typed from the literal: `ctx.params.name`). */
  path: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  /** The handler returns a stream; documented as `text/event-stream` / NDJSON. */
  streaming?: boolean;
  /**
   * Time allowed until the response starts (ms), instead of `config.timeout`: for routes that
   * wait on a slow upstream (a proxied non-streaming model call). A stream's body is never bounded.
   */
  timeoutMs?: number;
  /** The core does not parse the body: the handler reads `ctx.readRawBody()` (byte-exact proxies). */
  rawBody?: boolean;
  /** Mount outside `basePath` (e.g. `/health`, `/v1/messages`). */
  absolute?: boolean;
  /**
   * `false`: the server's window rate limiters (`config.rateLimit`, per client address) leave this
   * route alone — for surfaces that limit their callers themselves (the proxy, per client credential).
   */
  rateLimit?: false;
  /**
   * `false`: the server's CORS middleware leaves this route alone — no `Access-Control-*` header on
   * its answers and no preflight answered for its path — for same-origin-only surfaces (`/admin`).
   */
  cors?: false;
  /** Status of a success envelope (default 200). */
  successStatus?: number;
  operationId?: string;
}

/** The route that matched a request, as its context shows it: its options and full path. */
export interface MatchedRoute extends RouteOptions {
  fullPath: string;
}
