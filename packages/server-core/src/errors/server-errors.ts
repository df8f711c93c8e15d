import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import { type PresetOptions as Options, preset } from "./error-preset.js";
import { ServerAdapterError } from "./server-adapter-error.js";
import type { ValidationIssue } from "./validation-issue.js";

// The config errors and the wire-level factories live beside this file; importers keep one path.
export { type ConfigIssue, ConfigurationError, MissingDependencyError } from "./configuration-error.js";
export {
  invalidRoute,
  methodNotAllowed,
  middlewareError,
  payloadTooLarge,
  schemaError,
  serviceUnavailable,
  unsupportedMediaType,
  userConfirmationRequired,
} from "./error-responses.js";
export type { ValidationIssue };

const { CONFIG, VALIDATION, EXECUTION, RATE_LIMIT, AUTHENTICATION, AUTHORIZATION, STREAMING, WEBSOCKET } = ErrorCategory;
const { LOW, MEDIUM, HIGH, CRITICAL } = ErrorSeverity;

/** Two routes with the same method and path. */
export class RouteConflictError extends ServerAdapterError {
  constructor(method: string, path: string, options: Options = {}) {
    super(`Route ${method} ${path} is already registered`, {
      ...preset(500, CONFIG, ErrorCode.ROUTE_CONFLICT, HIGH, false, options),
      details: { method, path },
    });
  }
}

export class RouteNotFoundError extends ServerAdapterError {
  constructor(method: string, path: string, options: Options = {}) {
    super(`Route ${method} ${path} not found`, {
      ...preset(404, VALIDATION, ErrorCode.ROUTE_NOT_FOUND, LOW, false, options),
      details: { method, path },
    });
  }
}

/** Longest rejected string echoed back in an issue's `value`. */
const MAX_ECHOED_STRING = 100;

/**
 * An issue as the client may see it again: a rejected value is echoed only when it is a
 * short primitive. Objects and arrays are never copied into the error body (they can be huge
 * or nested deep enough to overflow a serializer); long strings are cut.
 */
function echoable(issue: ValidationIssue): ValidationIssue {
  if (!("value" in issue)) return issue;
  const { value, ...rest } = issue;
  if (value === null || typeof value === "number" || typeof value === "boolean") return { ...rest, value };
  if (typeof value === "string")
    return { ...rest, value: value.length > MAX_ECHOED_STRING ? `${value.slice(0, MAX_ECHOED_STRING)}…` : value };
  return rest;
}

/** The request is invalid; `errors` lists every failing field (also sent as `details.errors`, at most 50). */
export class ServerValidationError extends ServerAdapterError {
  readonly errors: ValidationIssue[];
  constructor(message: string, errors: ValidationIssue[] = [], options: Options = {}) {
    const echoed = errors.slice(0, 50).map(echoable);
    super(message, { ...preset(400, VALIDATION, ErrorCode.VALIDATION_ERROR, LOW, false, options), details: { errors: echoed } });
    this.errors = echoed;
  }
}

export class AuthenticationError extends ServerAdapterError {
  constructor(message = "Authentication required", options: Options = {}) {
    super(message, preset(401, AUTHENTICATION, ErrorCode.AUTH_REQUIRED, MEDIUM, false, options));
  }
}

export class InvalidAuthenticationError extends ServerAdapterError {
  constructor(message = "Invalid credentials", options: Options = {}) {
    super(message, preset(401, AUTHENTICATION, ErrorCode.AUTH_INVALID, MEDIUM, false, options));
  }
}

export class AuthorizationError extends ServerAdapterError {
  constructor(message = "Insufficient permissions", options: Options = {}) {
    super(message, preset(403, AUTHORIZATION, ErrorCode.FORBIDDEN, MEDIUM, false, options));
  }
}

export class ServerRateLimitError extends ServerAdapterError {
  constructor(message = "Rate limit exceeded", options: Options = {}) {
    super(message, preset(429, RATE_LIMIT, ErrorCode.RATE_LIMIT_EXCEEDED, LOW, true, options));
  }
}

/** A handler threw. The client sees only a generic message; the cause stays server-side. */
export class HandlerError extends ServerAdapterError {
  constructor(message = "Internal server error", options: Options = {}) {
    super(message, preset(500, EXECUTION, ErrorCode.HANDLER_ERROR, HIGH, false, options));
  }
}

export class TimeoutError extends ServerAdapterError {
  constructor(message = "Request timed out", options: Options = {}) {
    super(message, preset(408, EXECUTION, ErrorCode.TIMEOUT, MEDIUM, true, options));
  }
}

export class StreamingError extends ServerAdapterError {
  constructor(message = "Stream processing failed", options: Options = {}) {
    super(message, preset(500, STREAMING, ErrorCode.STREAM_ERROR, MEDIUM, false, options));
  }
}

/** The client went away mid-response (nginx's 499). */
export class StreamAbortedError extends ServerAdapterError {
  constructor(message = "Client disconnected", options: Options = {}) {
    super(message, preset(499, STREAMING, ErrorCode.STREAM_ABORTED, LOW, false, options));
  }
}

export class WebSocketError extends ServerAdapterError {
  constructor(message = "WebSocket error", options: Options = {}) {
    super(message, preset(500, WEBSOCKET, ErrorCode.WEBSOCKET_ERROR, MEDIUM, true, options));
  }
}

export class WebSocketConnectionError extends ServerAdapterError {
  constructor(message = "WebSocket connection failed", options: Options = {}) {
    super(message, preset(500, WEBSOCKET, ErrorCode.WEBSOCKET_CONNECTION_FAILED, MEDIUM, true, options));
  }
}

export class ServerStartError extends ServerAdapterError {
  constructor(message = "Server failed to start", options: Options = {}) {
    super(message, preset(500, CONFIG, ErrorCode.START_FAILED, CRITICAL, true, options));
  }
}

export class ServerStopError extends ServerAdapterError {
  constructor(message = "Server failed to stop", options: Options = {}) {
    super(message, preset(500, EXECUTION, ErrorCode.STOP_FAILED, HIGH, false, options));
  }
}

export class AlreadyRunningError extends ServerAdapterError {
  constructor(message = "Server is already running", options: Options = {}) {
    super(message, preset(500, CONFIG, ErrorCode.ALREADY_RUNNING, LOW, false, options));
  }
}

export class NotRunningError extends ServerAdapterError {
  constructor(message = "Server is not running", options: Options = {}) {
    super(message, preset(500, CONFIG, ErrorCode.NOT_RUNNING, LOW, false, options));
  }
}

/** Internal (not re-exported from the package root): a lifecycle method called in a state that forbids it. */
export class InvalidLifecycleStateError extends ServerAdapterError {
  constructor(message: string, options: Options = {}) {
    super(message, preset(500, CONFIG, ErrorCode.INVALID_CONFIG, MEDIUM, false, options));
  }
}
