import type { z } from "zod";
import type { ServerContext } from "./context.js";
import type { ErrorShape } from "./error-writer.js";
import type { MiddlewareDefinition } from "./middleware.js";
import type { RouteOptions } from "./route-options.js";

export interface RouteSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Documents the `data` of the success envelope in OpenAPI. */
  response?: z.ZodType;
}

// Tuple-wrapped so an optional (possibly undefined) schema slot falls back instead of inferring `unknown`.
type Infer<T, Fallback> = [T] extends [z.ZodType] ? z.output<T> : Fallback;
/** One schema slot of `S` (undefined when the route has no schemas). */
type Slot<S, K extends keyof RouteSchemas> = S extends RouteSchemas ? S[K] : undefined;

type PathSegments<P extends string> = P extends `${infer Head}/${infer Tail}` ? Head | PathSegments<Tail> : P;
type ParamName<Segment> = Segment extends `:${infer Name}` ? Name : never;

/**
 * The parameters of a path literal: `"/users/:id/posts/:postId"` → `{id: string; postId: string}`;
 * a path typed only as `string` gives `Record<string, string>`.
 */
export type PathParams<P extends string> = string extends P ? Record<string, string> : { [Name in ParamName<PathSegments<P>>]: string };

/** The handler's context: body, query and params from the route's zod schemas; params from the path literal when no schema says otherwise. */
export type RouteContext<S extends RouteSchemas | undefined, P extends string = string> = ServerContext<
  Infer<Slot<S, "body">, unknown>,
  Infer<Slot<S, "query">, Record<string, string | string[]>>,
  Infer<Slot<S, "params">, PathParams<P>>
>;

/**
 * Returns a value (sent as `{data, metadata}`), a `RawResponse` (sent as is),
 * a web `Response`, or an async iterable of stream events (sent as SSE or NDJSON).
 */
// biome-ignore lint/suspicious/noExplicitAny: the handler's context type comes from its schemas
export type RouteHandler<S extends RouteSchemas | undefined = any, P extends string = string> = (ctx: RouteContext<S, P>) => unknown;

export interface RouteDefinition<S extends RouteSchemas | undefined = RouteSchemas | undefined, P extends string = string>
  extends RouteOptions {
  /** Relative to `basePath` unless `absolute`; `:name` marks a parameter (typed from the literal: `ctx.params.name`). */
  path: P;
  handler: RouteHandler<S, P>;
  schema?: S;
  /** Middleware for this route only, run after the global ones of the same order. */
  middleware?: MiddlewareDefinition[];
}

export interface RouteGroup {
  /** Joined to `basePath`, e.g. `/agent`. */
  prefix: string;
  routes: RouteDefinition[];
  middleware?: MiddlewareDefinition[];
  tags?: string[];
  /**
   * Error shapes of the group's surface (by absolute path prefix), used wherever Conduit's own
   * errors on those paths become responses — unknown routes under the prefix included.
   */
  errorShapes?: ErrorShape[];
}

/** A route as the core keeps it: full path resolved. */
export interface RegisteredRoute extends RouteDefinition {
  fullPath: string;
}

/**
 * Builds a route with its context typed from its zod schemas and its path literal.
 *
 * @example
 * defineRoute({
 *   method: "POST",
 *   path: "/echo/:id",
 *   schema: { body: z.object({ text: z.string() }) },
 *   handler: (ctx) => ({ id: ctx.params.id, echo: ctx.body.text }),
 * });
 */
export function defineRoute<S extends RouteSchemas | undefined = undefined, P extends string = string>(
  route: RouteDefinition<S, P>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}
