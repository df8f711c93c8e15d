import type { z } from "zod";
import type { ServerContext } from "./context.js";
import type { HttpMethod } from "./http.js";
import type { MiddlewareDefinition } from "./middleware.js";

export interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Documents the `data` of the success envelope in OpenAPI. */
  response?: z.ZodType;
}

// Tuple-wrapped so an optional (possibly undefined) schema slot falls back instead of inferring `unknown`.
type Infer<T, Fallback> = [T] extends [z.ZodType] ? z.output<T> : Fallback;

export type RouteContext<S extends RouteSchemas | undefined> = ServerContext<
  Infer<NonNullable<S>["body"], unknown>,
  Infer<NonNullable<S>["query"], Record<string, string | string[]>>,
  Infer<NonNullable<S>["params"], Record<string, string>>
>;

/**
 * Returns a value (sent as `{data, metadata}`), a `RawResponse` (sent as is),
 * a web `Response`, or an async iterable of stream events (sent as SSE or NDJSON).
 */
// biome-ignore lint/suspicious/noExplicitAny: the handler's context type comes from its schemas
export type RouteHandler<S extends RouteSchemas | undefined = any> = (ctx: RouteContext<S>) => unknown;

export interface RouteDefinition<S extends RouteSchemas | undefined = RouteSchemas | undefined> {
  method: HttpMethod;
  /** Relative to `basePath` unless `absolute`; `:name` marks a parameter. */
  path: string;
  handler: RouteHandler<S>;
  schema?: S;
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
  /** Status of a success envelope (default 200). */
  successStatus?: number;
  /** Middleware for this route only, run after the global ones of the same order. */
  middleware?: MiddlewareDefinition[];
  operationId?: string;
}

export interface RouteGroup {
  /** Joined to `basePath`, e.g. `/agent`. */
  prefix: string;
  routes: RouteDefinition[];
  middleware?: MiddlewareDefinition[];
  tags?: string[];
}

/** A route as the core keeps it: full path resolved. */
export interface RegisteredRoute extends RouteDefinition {
  fullPath: string;
}

/**
 * Builds a route with its context typed from its zod schemas.
 *
 * @example
 * defineRoute({
 *   method: "POST",
 *   path: "/echo",
 *   schema: { body: z.object({ text: z.string() }) },
 *   handler: (ctx) => ({ echo: ctx.body.text }),
 * });
 */
export function defineRoute<S extends RouteSchemas | undefined = undefined>(route: RouteDefinition<S>): RouteDefinition {
  return route as RouteDefinition;
}
