import type { MiddlewareDefinition, ServerContext } from "@conduit-ai/server-core";
import { createAuthMiddleware } from "./auth-middleware.js";
import type { AuthValidationResult } from "./auth-types.js";
import type { SchemeMiddlewareOptions } from "./scheme-middleware.js";

export interface BasicAuthOptions extends SchemeMiddlewareOptions {
  /** Compare passwords in constant time (`secretsEqual`). */
  validate: (username: string, password: string, ctx: ServerContext) => AuthValidationResult | Promise<AuthValidationResult>;
}

/**
 * HTTP Basic (`Authorization: Basic base64(user:password)`). The credential is decoded
 * strictly; bad base64, invalid UTF-8 or a missing colon is a 401, never a crash.
 *
 * @example
 * server.registerMiddleware(
 *   createBasicAuthMiddleware({
 *     validate: (username, password) =>
 *       username === "ops" && secretsEqual(password, process.env.OPS_PASSWORD!) ? { id: "ops" } : null,
 *   }),
 * );
 */
export function createBasicAuthMiddleware(options: BasicAuthOptions): MiddlewareDefinition {
  const { validate, required = true, ...rest } = options;
  return createAuthMiddleware({
    name: "basic-auth",
    ...rest,
    type: "basic",
    optional: !required,
    // The core's extraction hands over `username:password`, already decoded and checked.
    validate: (credential, ctx) => {
      const colon = credential.indexOf(":");
      if (colon <= 0) return null;
      return validate(credential.slice(0, colon), credential.slice(colon + 1), ctx);
    },
  });
}
