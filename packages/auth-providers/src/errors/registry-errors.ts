import { ErrorCategory, ErrorSeverity, ServerAdapterError } from "@conduit-ai/server-core";

/**
 * Factory and registry failure codes (docs/spec.md: numbered from 001, 001 = not found).
 *
 * | code | meaning |
 * |---|---|
 * | `AUTH_FACTORY-001` | no provider type or alias of that name |
 * | `AUTH_FACTORY-002` | the config is not an object with a string `type` |
 * | `AUTH_FACTORY-003` | the provider's factory failed (its settings were refused) |
 * | `AUTH_REGISTRY-001` | no registered provider definition of that name |
 * | `AUTH_REGISTRY-002` | a type or alias is already registered |
 * | `AUTH_REGISTRY-003` | a definition is malformed (no type, no factory) |
 */
export const AuthLookupCode = {
  FACTORY_NOT_FOUND: "AUTH_FACTORY-001",
  FACTORY_INVALID_CONFIG: "AUTH_FACTORY-002",
  FACTORY_CREATE_FAILED: "AUTH_FACTORY-003",
  REGISTRY_NOT_FOUND: "AUTH_REGISTRY-001",
  REGISTRY_DUPLICATE: "AUTH_REGISTRY-002",
  REGISTRY_INVALID_DEFINITION: "AUTH_REGISTRY-003",
} as const;
export type AuthLookupCode = (typeof AuthLookupCode)[keyof typeof AuthLookupCode];

/**
 * A factory or registry lookup failed; `code` is one of `AuthLookupCode`. A configuration
 * problem (400, category CONFIG), raised at startup rather than per request.
 *
 * @example
 * try { createAuthProvider({ type: "okta" }); } catch (error) { error.code; // "AUTH_FACTORY-001" }
 */
export class AuthLookupError extends ServerAdapterError {
  constructor(code: AuthLookupCode, message: string, details?: Record<string, unknown>, cause?: unknown) {
    super(message, {
      code,
      statusCode: 400,
      category: ErrorCategory.CONFIG,
      severity: ErrorSeverity.HIGH,
      ...(details === undefined ? {} : { details }),
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
