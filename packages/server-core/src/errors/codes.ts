/** Error categories of docs/spec.md; each maps to one recovery strategy. */
export const ErrorCategory = {
  CONFIG: "CONFIG",
  VALIDATION: "VALIDATION",
  EXECUTION: "EXECUTION",
  EXTERNAL: "EXTERNAL",
  RATE_LIMIT: "RATE_LIMIT",
  AUTHENTICATION: "AUTHENTICATION",
  AUTHORIZATION: "AUTHORIZATION",
  STREAMING: "STREAMING",
  WEBSOCKET: "WEBSOCKET",
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

export const ErrorSeverity = {
  LOW: "LOW",
  MEDIUM: "MEDIUM",
  HIGH: "HIGH",
  CRITICAL: "CRITICAL",
} as const;
export type ErrorSeverity = (typeof ErrorSeverity)[keyof typeof ErrorSeverity];

/** Every code a server error may carry (docs/spec.md "Errors"). */
export const ErrorCode = {
  INVALID_CONFIG: "INVALID_CONFIG",
  MISSING_DEPENDENCY: "MISSING_DEPENDENCY",
  FRAMEWORK_INIT_FAILED: "FRAMEWORK_INIT_FAILED",
  ROUTE_NOT_FOUND: "ROUTE_NOT_FOUND",
  ROUTE_CONFLICT: "ROUTE_CONFLICT",
  INVALID_ROUTE: "INVALID_ROUTE",
  HANDLER_ERROR: "HANDLER_ERROR",
  TIMEOUT: "TIMEOUT",
  MIDDLEWARE_ERROR: "MIDDLEWARE_ERROR",
  RATE_LIMIT_EXCEEDED: "RATE_LIMIT_EXCEEDED",
  AUTH_REQUIRED: "AUTH_REQUIRED",
  AUTH_INVALID: "AUTH_INVALID",
  FORBIDDEN: "FORBIDDEN",
  STREAM_ERROR: "STREAM_ERROR",
  STREAM_ABORTED: "STREAM_ABORTED",
  WEBSOCKET_ERROR: "WEBSOCKET_ERROR",
  WEBSOCKET_CONNECTION_FAILED: "WEBSOCKET_CONNECTION_FAILED",
  VALIDATION_ERROR: "VALIDATION_ERROR",
  SCHEMA_ERROR: "SCHEMA_ERROR",
  START_FAILED: "START_FAILED",
  STOP_FAILED: "STOP_FAILED",
  ALREADY_RUNNING: "ALREADY_RUNNING",
  NOT_RUNNING: "NOT_RUNNING",
  /** Not in docs/spec.md's list but needed on the wire: 413, 415, 431, 503 while draining, 405. */
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  HEADERS_TOO_LARGE: "HEADERS_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  /** Runtime feature (spec "Other codes"): a tool flagged `requiresConfirmation` called without `confirmed: true`. */
  USER_CONFIRMATION_REQUIRED: "USER_CONFIRMATION_REQUIRED",
  /** 503: a shared store (Redis) cannot be reached; retryable, with `Retry-After`. */
  STORE_UNAVAILABLE: "STORE_UNAVAILABLE",
  /** The final `error` event of a stream the shutdown ended before it finished. */
  SERVER_SHUTTING_DOWN: "SERVER_SHUTTING_DOWN",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
