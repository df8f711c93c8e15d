import type { CORSConfig, CORSOriginFunction, CORSOriginMatcher } from "../contracts/config.js";
import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RouteOptions } from "../contracts/route-options.js";
import { ANSWERED, PASSED_ON, middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";
import { ConfigurationError } from "../errors/server-errors.js";

const DEFAULT_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

/** The `Access-Control-Allow-Origin` value for a request's origin, or undefined when it is not allowed. */
type OriginDecision = (origin: string, ctx: ServerContext) => string | undefined | Promise<string | undefined>;

function matches(matcher: CORSOriginMatcher, origin: string): boolean {
  if (typeof matcher === "string") return matcher === origin;
  // A global or sticky RegExp keeps state between calls: start from the beginning every time.
  matcher.lastIndex = 0;
  return matcher.test(origin);
}

function fromFunction(decide: CORSOriginFunction): OriginDecision {
  const interpret = (result: boolean | string | null | undefined, origin: string) =>
    result === true ? origin : typeof result === "string" && result !== "" ? result : undefined;
  return (origin, ctx) => {
    const result = decide(origin, ctx);
    return result instanceof Promise ? result.then((value) => interpret(value, origin)) : interpret(result, origin);
  };
}

function decisionFor(origins: NonNullable<CORSConfig["origins"]>): OriginDecision {
  if (origins === "*") return () => "*";
  if (typeof origins === "function") return fromFunction(origins);
  const list = Array.isArray(origins) ? origins : [origins];
  const exact = new Set(list.filter((matcher): matcher is string => typeof matcher === "string"));
  const patterns = list.filter((matcher): matcher is RegExp => matcher instanceof RegExp);
  return (origin) => (exact.has(origin) || patterns.some((pattern) => matches(pattern, origin)) ? origin : undefined);
}

export interface CORSOptions extends CORSConfig {
  /**
   * The routes at a path, for a preflight no route answers (`OPTIONS` is rarely registered): a
   * preflight for a path whose routes say `cors: false` gets no CORS answer. The server passes its route table.
   */
  routesAt?: (path: string) => ReadonlyArray<Pick<RouteOptions, "cors">>;
}

/** True when the request's route, or for a preflight any route at its path, opted out of CORS. */
function closedToCors(ctx: ServerContext, routesAt: CORSOptions["routesAt"]): boolean {
  if (ctx.route !== undefined) return ctx.route.cors === false;
  return routesAt?.(ctx.path).some((route) => route.cors === false) === true;
}

/**
 * CORS from `config.cors` (order 2, before routing and auth), answering as `cors`,
 * `@fastify/cors` and `hono/cors` do:
 * - `origins`: `"*"` (default), one origin, a RegExp, a list of both, or a function
 *   `(origin, ctx) => boolean | string` (may be async). Anything but a static `"*"` echoes
 *   the request's origin and sends `Vary: Origin`.
 * - `credentials: true` with `"*"` is refused when the middleware is built (any site could
 *   make credentialed requests otherwise).
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
 *   origin is answered 204 whatever routes exist, with the allowed methods, and either the
 *   configured `allowedHeaders` or the requested ones reflected (with
 *   `Vary: Access-Control-Request-Headers`).
 * - A disallowed origin gets no CORS headers: the browser enforces, the server does not fail.
 * - A route with `cors: false` (the admin API) gets none either, and no preflight is answered for it.
 *
 * @example
 * adapter.registerMiddleware(createCorsMiddleware({ origins: ["https://app.example", /\.preview\.example$/], credentials: true, maxAge: 600 }));
 */
export function createCorsMiddleware(options: CORSOptions = {}): MiddlewareDefinition {
  const origins = options.origins ?? "*";
  const credentials = options.credentials ?? false;
  if (credentials && origins === "*") {
    const message = 'credentials: true needs explicit origins (a list, a RegExp or a function), not the default "*"';
    throw new ConfigurationError(`Invalid server configuration: cors.credentials: ${message}`, {
      details: { issues: [{ path: "cors.credentials", message }] },
    });
  }
  const decide = decisionFor(origins);
  const varyByOrigin = origins !== "*";
  const methods = (options.methods ?? DEFAULT_METHODS).join(", ");
  const allowedHeaders = options.allowedHeaders?.join(", ");
  const exposedHeaders = (options.exposedHeaders ?? []).join(", ");
  const maxAge = options.maxAge;

  // CORS only sets headers (or answers a preflight): it takes no part after the handler.
  const answer = (ctx: ServerContext, allowOrigin: string | undefined): typeof PASSED_ON | typeof ANSWERED => {
    if (allowOrigin === undefined) return PASSED_ON;
    ctx.setHeader("access-control-allow-origin", allowOrigin);
    if (credentials) ctx.setHeader("access-control-allow-credentials", "true");
    if (ctx.method === "OPTIONS" && ctx.header("access-control-request-method") !== undefined) {
      ctx.setHeader("access-control-allow-methods", methods);
      if (allowedHeaders !== undefined) ctx.setHeader("access-control-allow-headers", allowedHeaders);
      else {
        ctx.appendHeader("vary", "Access-Control-Request-Headers");
        const requested = ctx.header("access-control-request-headers");
        if (requested) ctx.setHeader("access-control-allow-headers", requested);
      }
      if (maxAge !== undefined) ctx.setHeader("access-control-max-age", String(maxAge));
      ctx.response.status = 204;
      ctx.response.body = null;
      return ANSWERED;
    }
    if (exposedHeaders) ctx.setHeader("access-control-expose-headers", exposedHeaders);
    return PASSED_ON;
  };

  return middlewareFromHooks(
    { name: "cors", order: 2 },
    {
      before: (ctx) => {
        // Whether or not this request has an Origin, caches must keep answers per origin apart.
        if (varyByOrigin) ctx.appendHeader("vary", "Origin");
        const origin = ctx.header("origin");
        if (origin === undefined || closedToCors(ctx, options.routesAt)) return PASSED_ON;
        const decision = decide(origin, ctx);
        return decision instanceof Promise ? decision.then((allowOrigin) => answer(ctx, allowOrigin)) : answer(ctx, decision);
      },
    },
  );
}
