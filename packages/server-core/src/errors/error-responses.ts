import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import { ServerAdapterError } from "./server-adapter-error.js";

const { CONFIG, VALIDATION, EXECUTION, AUTHORIZATION } = ErrorCategory;
const { LOW, HIGH } = ErrorSeverity;

/** Wire-level errors outside docs/spec.md's class table (413, 415, 503, 405), built on the base class. */
export function payloadTooLarge(limitBytes: number): ServerAdapterError {
  return new ServerAdapterError(`Request body exceeds the ${limitBytes} byte limit`, {
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    statusCode: 413,
    category: VALIDATION,
    severity: LOW,
    details: { limit: limitBytes },
  });
}

export function unsupportedMediaType(contentType: string): ServerAdapterError {
  return new ServerAdapterError(`Unsupported content type "${contentType}"`, {
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    statusCode: 415,
    category: VALIDATION,
    severity: LOW,
    details: { contentType, supported: ["application/json", "application/x-www-form-urlencoded", "text/plain"] },
  });
}

export function serviceUnavailable(message = "Server is shutting down"): ServerAdapterError {
  return new ServerAdapterError(message, {
    code: ErrorCode.SERVICE_UNAVAILABLE,
    statusCode: 503,
    category: EXECUTION,
    severity: LOW,
    retryable: true,
  });
}

export function methodNotAllowed(method: string, path: string, allowed: string[]): ServerAdapterError {
  return new ServerAdapterError(`Method ${method} not allowed on ${path}`, {
    code: ErrorCode.METHOD_NOT_ALLOWED,
    statusCode: 405,
    category: VALIDATION,
    severity: LOW,
    details: { method, path, allowed },
  });
}

/**
 * A middleware threw something that is not a server error (a bug in it, not a decision to
 * refuse): 500 `MIDDLEWARE_ERROR` with a generic message; the cause stays server-side.
 */
export function middlewareError(cause: unknown): ServerAdapterError {
  return new ServerAdapterError("Internal server error", {
    code: ErrorCode.MIDDLEWARE_ERROR,
    statusCode: 500,
    category: EXECUTION,
    severity: HIGH,
    cause,
  });
}

/** A route refused at registration: bad method, path, handler or middleware (`details` names which). */
export function invalidRoute(message: string, details: Record<string, unknown>): ServerAdapterError {
  return new ServerAdapterError(`Invalid route: ${message}`, {
    code: ErrorCode.INVALID_ROUTE,
    statusCode: 500,
    category: CONFIG,
    severity: HIGH,
    details,
  });
}

/**
 * A route schema that is not a schema or cannot run: refused at registration, or a 500
 * when validation itself throws (the schema's fault, never the client's).
 */
export function schemaError(message: string, details: Record<string, unknown>, cause?: unknown): ServerAdapterError {
  return new ServerAdapterError(message, {
    code: ErrorCode.SCHEMA_ERROR,
    statusCode: 500,
    category: CONFIG,
    severity: HIGH,
    details,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * 428 Precondition Required: a tool flagged `requiresConfirmation` was called without
 * `confirmed: true` — a precondition the client can meet by repeating the call. The one
 * definition every runtime (and test double) raises, so the status is the same everywhere.
 *
 * @example
 * if (tool.requiresConfirmation && !options.confirmed) throw userConfirmationRequired(tool.name);
 */
export function userConfirmationRequired(toolName: string): ServerAdapterError {
  return new ServerAdapterError(`Tool "${toolName}" requires user confirmation; repeat the call with confirmed: true`, {
    code: ErrorCode.USER_CONFIRMATION_REQUIRED,
    statusCode: 428,
    category: AUTHORIZATION,
    severity: LOW,
    details: { name: toolName },
  });
}
