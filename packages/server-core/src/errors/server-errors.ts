import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import { type PackageManager, installCommand } from "./install-command.js";
import { ServerAdapterError, type ServerErrorOptions } from "./server-adapter-error.js";
import type { ValidationIssue } from "./validation-issue.js";
import { type ZodIssueLike, formatZodIssues } from "./zod-issues.js";

export type { ValidationIssue };

type Options = Omit<ServerErrorOptions, "statusCode" | "category">;

/** Fixes status, category, code, severity and retryability of a subclass; callers may still pass details, cause etc. */
function preset(
  statusCode: number,
  category: ErrorCategory,
  code: ErrorCode,
  severity: ErrorSeverity,
  retryable: boolean,
  options: Options,
): ServerErrorOptions {
  return { code, severity, retryable, ...options, statusCode, category };
}

const { CONFIG, VALIDATION, EXECUTION, RATE_LIMIT, AUTHENTICATION, AUTHORIZATION, STREAMING, WEBSOCKET } = ErrorCategory;
const { LOW, MEDIUM, HIGH, CRITICAL } = ErrorSeverity;

/** One configuration problem, by its key path (`providers.gemini.apiKeys`, `telemetry.endpoint`). */
export interface ConfigIssue {
  path: string;
  message: string;
}

/**
 * Invalid configuration, the one config-error type of every package (server, providers,
 * telemetry, the MCP gateway): `issues` names every problem by key path, and the message reads
 * `path: problem; …`. The CLI prints it and exits 2.
 *
 * @example
 * throw ConfigurationError.at("telemetry.endpoint", "expected a URL");
 */
export class ConfigurationError extends ServerAdapterError {
  constructor(message: string, options: Options = {}) {
    super(message, preset(400, CONFIG, ErrorCode.INVALID_CONFIG, HIGH, false, options));
  }

  /** Every problem by key path (empty when the error was built from a message alone). */
  get issues(): ConfigIssue[] {
    const issues = (this.details as { issues?: unknown } | undefined)?.issues;
    return Array.isArray(issues) ? (issues as ConfigIssue[]) : [];
  }

  /** An error naming each problem by key path: the message lists them as `path: problem`. */
  static of(issues: ConfigIssue[], options: Options = {}): ConfigurationError {
    const message = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    return new ConfigurationError(message, { ...options, details: { issues } });
  }

  /** One problem at one key path. */
  static at(path: string, message: string): ConfigurationError {
    return ConfigurationError.of([{ path, message }]);
  }

  /**
   * A config section's zod issues under its key (`root`): an unknown key is named where it
   * sits (`telemetry.sdkk: unknown key`), a value outside a closed set lists the set
   * (`telemetry.sdk: expected "conduit" | "opentelemetry"`).
   *
   * @example
   * const result = schema.safeParse(section);
   * if (!result.success) throw ConfigurationError.ofZod(result.error, "telemetry");
   */
  static ofZod(error: { readonly issues: readonly ZodIssueLike[] }, root: string): ConfigurationError {
    const issues = formatZodIssues(error, { root, unknownKeys: "each", message: configIssueMessage });
    return ConfigurationError.of(issues.map(({ field, message }) => ({ path: field, message })));
  }
}

/** A closed set spelled as its members; every other issue keeps the schema's own wording. */
function configIssueMessage(issue: ZodIssueLike): string {
  if (issue.code === "invalid_value" && issue.values && issue.values.length > 0)
    return `expected ${issue.values.map((value) => JSON.stringify(value)).join(" | ")}`;
  return issue.message;
}

/**
 * An optional package is not installed (a framework, an adapter, or what an enabled feature
 * needs, e.g. `swagger-ui-dist` for the docs page). The message names the install line for the
 * package manager in use (`npm install …`, `pnpm add …`, `yarn add …`, `bun add …`).
 */
export class MissingDependencyError extends ServerAdapterError {
  readonly packageName: string;
  /**
   * `packages` lists everything to add (e.g. the adapter and its framework; default `packageName`);
   * `feature` says what needs it (e.g. `"the docs page (enableSwagger)"`).
   */
  constructor(packageName: string, options: Options & { packages?: string[]; feature?: string; packageManager?: PackageManager } = {}) {
    const { packages = [packageName], feature, packageManager, ...rest } = options;
    const install = installCommand(packages, packageManager);
    const neededBy = feature ? ` (needed by ${feature})` : "";
    super(`Missing dependency "${packageName}"${neededBy}. Install it with: ${install}`, {
      ...preset(500, CONFIG, ErrorCode.MISSING_DEPENDENCY, CRITICAL, false, rest),
      details: { package: packageName, packages, install, ...(feature ? { feature } : {}) },
    });
    this.packageName = packageName;
  }
}

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
