import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import type { ApiKeyStore } from "./api-key-store.js";
import { createAuthMiddleware } from "./auth-middleware.js";
import type { TokenValidator } from "./auth-types.js";
import type { SchemeMiddlewareOptions } from "./scheme-middleware.js";

export interface ApiKeyAuthOptions extends SchemeMiddlewareOptions {
  /** Keys and their users (checked in constant time). */
  store?: ApiKeyStore;
  /** A validator of your own, used when no `store` is given. */
  validate?: TokenValidator;
}

/**
 * API keys from the `x-api-key` header (or `headerName`), checked against an
 * `ApiKeyStore` or a validator.
 *
 * @example
 * const store = new ApiKeyStore().addKey(process.env.SERVICE_KEY!, { id: "service", roles: ["service"] });
 * server.registerMiddleware(createApiKeyAuthMiddleware({ store }));
 */
export function createApiKeyAuthMiddleware(options: ApiKeyAuthOptions): MiddlewareDefinition {
  const { store, validate, required = true, ...rest } = options;
  const validator: TokenValidator | undefined = store ? (key) => store.validate(key) : validate;
  if (!validator) throw new TypeError("createApiKeyAuthMiddleware: pass a `store` or a `validate` function");
  return createAuthMiddleware({ name: "api-key-auth", ...rest, type: "api-key", validate: validator, optional: !required });
}
