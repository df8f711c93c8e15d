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
  invalidRoute,
  methodNotAllowed,
  middlewareError,
  payloadTooLarge,
  schemaError,
  serviceUnavailable,
  unsupportedMediaType,
  userConfirmationRequired,
  type ValidationIssue,
} from "./server-errors.js";
export * from "./wrap-error.js";
export { type PackageManager, detectPackageManager, installCommand } from "./install-command.js";
export { STORE_UNAVAILABLE_RETRY_AFTER_MS, StoreUnavailableError, isStoreUnavailable, storeCall } from "./store-unavailable.js";
