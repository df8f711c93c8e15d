export * from "./codes.js";
export * from "./recovery.js";
export * from "./server-adapter-error.js";
export {
  AlreadyRunningError,
  AuthenticationError,
  AuthorizationError,
  ConfigurationError,
  HandlerError,
  InvalidAuthenticationError,
  MissingDependencyError,
  NotRunningError,
  RouteConflictError,
  RouteNotFoundError,
  ServerRateLimitError,
  ServerStartError,
  ServerStopError,
  ServerValidationError,
  StreamAbortedError,
  StreamingError,
  TimeoutError,
  WebSocketConnectionError,
  WebSocketError,
  methodNotAllowed,
  payloadTooLarge,
  serviceUnavailable,
  unsupportedMediaType,
  type ValidationIssue,
} from "./server-errors.js";
export * from "./wrap-error.js";
