import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";

const serverErrorMarker = Symbol.for("@conduit-ai/server-core/ServerAdapterError");

export interface ServerErrorOptions {
  code?: ErrorCode | string;
  statusCode?: number;
  category?: ErrorCategory;
  severity?: ErrorSeverity;
  retryable?: boolean;
  retryAfterMs?: number;
  requestId?: string;
  path?: string;
  method?: string;
  details?: unknown;
  cause?: unknown;
}

/** The `error` member of every error envelope. */
export interface SerializedServerError {
  code: string;
  message: string;
  category: ErrorCategory;
  requestId?: string;
  details?: unknown;
  /** Seconds, like the `Retry-After` header. */
  retryAfter?: number;
}

/**
 * Base class of every server error. Errors become a response in exactly one place
 * (the core's error step) through `statusCode` and `toJSON()`.
 *
 * @example
 * throw new ServerAdapterError("Upstream refused", { code: "HANDLER_ERROR", statusCode: 502, category: "EXTERNAL" });
 */
export class ServerAdapterError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly category: ErrorCategory;
  readonly severity: ErrorSeverity;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  requestId?: string;
  path?: string;
  method?: string;
  readonly details?: unknown;

  constructor(message: string, options: ServerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? ErrorCode.HANDLER_ERROR;
    this.statusCode = options.statusCode ?? 500;
    this.category = options.category ?? ErrorCategory.EXECUTION;
    this.severity = options.severity ?? ErrorSeverity.MEDIUM;
    this.retryable = options.retryable ?? false;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.requestId !== undefined) this.requestId = options.requestId;
    if (options.path !== undefined) this.path = options.path;
    if (options.method !== undefined) this.method = options.method;
    if (options.details !== undefined) this.details = options.details;
    Object.defineProperty(this, serverErrorMarker, { value: true });
  }

  /** True for server errors from any copy of this package (instanceof fails across copies). */
  static isInstance(value: unknown): value is ServerAdapterError {
    if (typeof value !== "object" || value === null) return false;
    try {
      return (value as Record<symbol, unknown>)[serverErrorMarker] === true;
    } catch {
      // A thrown Proxy whose traps throw is not a server error (and must not crash the check).
      return false;
    }
  }

  /** The spec's serialization `{error: {code, message, category, requestId, details, retryAfter}}`. */
  toJSON(): { error: SerializedServerError } {
    const error: SerializedServerError = { code: this.code, message: this.message, category: this.category };
    if (this.requestId !== undefined) error.requestId = this.requestId;
    if (this.details !== undefined) error.details = this.details;
    if (this.retryAfterMs !== undefined) error.retryAfter = Math.ceil(this.retryAfterMs / 1000);
    return { error };
  }
}
