import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import { createAuthMiddleware } from "./auth-middleware.js";
import type { TokenValidator } from "./auth-types.js";
import type { SchemeMiddlewareOptions } from "./scheme-middleware.js";

export interface BearerAuthOptions extends SchemeMiddlewareOptions {
  validate: TokenValidator;
}

/**
 * `Authorization: Bearer <token>` (scheme case-insensitive). `required` defaults to
 * true; with `required: false` anonymous requests pass without `ctx.user`.
 *
 * @example
 * server.registerMiddleware(createBearerAuthMiddleware({ validate: (token) => verifyJwt(token) }));
 */
export function createBearerAuthMiddleware(options: BearerAuthOptions): MiddlewareDefinition {
  const { required = true, ...rest } = options;
  return createAuthMiddleware({ name: "bearer-auth", ...rest, type: "bearer", optional: !required });
}
