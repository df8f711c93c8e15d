import type { CORSConfig } from "../contracts/config.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";

const DEFAULT_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];
const DEFAULT_ALLOWED_HEADERS = ["Content-Type", "Authorization", "X-API-Key", "X-Request-Id"];

/**
 * CORS from `config.cors` (order 2, before routing and auth). A preflight (`OPTIONS` with
 * `Origin` and `Access-Control-Request-Method`) from an allowed origin is answered 204
 * with the allowed methods and headers whatever routes exist; other requests from an
 * allowed origin get `Access-Control-Allow-Origin` (and credentials/exposed headers).
 * A disallowed origin simply gets no CORS headers — the browser enforces, the server does
 * not fail.
 *
 * @example
 * adapter.registerMiddleware(createCorsMiddleware({ origins: ["https://app.example"], credentials: true, maxAge: 600 }));
 */
export function createCorsMiddleware(options: CORSConfig = {}): MiddlewareDefinition {
  const origins = options.origins ?? "*";
  const credentials = options.credentials ?? false;
  const methods = (options.methods ?? DEFAULT_METHODS).join(", ");
  const allowedHeaders = (options.allowedHeaders ?? DEFAULT_ALLOWED_HEADERS).join(", ");
  const exposedHeaders = (options.exposedHeaders ?? []).join(", ");
  const maxAge = options.maxAge;
  const allowedOrigins = origins === "*" ? undefined : new Set(origins);
  // `*` cannot be combined with credentials, and a list must echo the one origin: both vary by Origin.
  const reflect = allowedOrigins !== undefined || credentials;
  return {
    name: "cors",
    order: 2,
    handler: (ctx, next) => {
      const origin = ctx.header("origin");
      if (reflect) ctx.appendHeader("vary", "Origin");
      if (origin === undefined || (allowedOrigins !== undefined && !allowedOrigins.has(origin))) return next();
      ctx.setHeader("access-control-allow-origin", reflect ? origin : "*");
      if (credentials) ctx.setHeader("access-control-allow-credentials", "true");
      const requestedMethod = ctx.header("access-control-request-method");
      if (ctx.method === "OPTIONS" && requestedMethod !== undefined) {
        ctx.setHeader("access-control-allow-methods", methods);
        ctx.setHeader("access-control-allow-headers", allowedHeaders);
        if (maxAge !== undefined) ctx.setHeader("access-control-max-age", String(maxAge));
        ctx.response.status = 204;
        ctx.response.body = null;
        return;
      }
      if (exposedHeaders) ctx.setHeader("access-control-expose-headers", exposedHeaders);
      return next();
    },
  };
}
