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
  serviceUnavailable,
  userConfirmationRequired,
  type ValidationIssue,
  type ConfigIssue,
} from "./server-errors.js";
export { wrapError } from "./wrap-error.js";
export type { PackageManager } from "./install-command.js";
export { StoreUnavailableError, isStoreUnavailable, storeCall } from "./store-unavailable.js";
export {
  type FormatZodIssuesOptions,
  type ZodIssueLike,
  formatZodIssues,
  summarizeIssues,
  zodIssueField,
} from "./zod-issues.js";
