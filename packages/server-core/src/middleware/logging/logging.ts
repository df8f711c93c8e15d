import { performance } from "../../core/pipeline/clock.js";
import type { DestinationStream, Logger as PinoLogger } from "pino";
import type { LogLevel } from "../../contracts/config.js";
import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { PASSED_ON, TAKES_PART, middlewareFromHooks } from "../../core/pipeline/middleware-hooks.js";
import { loadOptionalDependency } from "../../core/lifecycle/optional-dependency.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { matchesPathPrefix, prefixFilters } from "../path-prefix.js";
import { type QueryValueLogging, REDACTED, REDACT_PATHS, redactedUrl } from "./redact.js";
import { REQUEST_LOGGER_STATE_KEY, RequestLogger } from "./request-logger.js";

export const DEFAULT_LOG_SKIP_PATHS = ["/health", "/ready", "/metrics"];

export interface ServerLoggerOptions {
  level?: LogLevel;
  /** Where JSON lines go (default stdout); tests pass a stream that collects them. */
  destination?: DestinationStream;
}

/**
 * The structured JSON logger (pino) with secrets censored: authorization, cookies,
 * API keys and tokens never appear in a line.
 *
 * @example
 * const logger = createServerLogger({ level: "debug" });
 */
export function createServerLogger(options: ServerLoggerOptions = {}): PinoLogger {
  const { pino } = loadPino();
  const settings = { level: options.level ?? "info", base: null, redact: { paths: REDACT_PATHS, censor: REDACTED } };
  return pino(settings, options.destination ?? defaultDestination());
}

/** pino, loaded when the first logger is made (not when the core is imported). */
const loadPino = () => loadOptionalDependency<typeof import("pino")>("pino", { feature: "request logging (logging.enabled)" });

/** Bytes buffered before a write, and the longest a line waits at low traffic (ms). */
const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 100;

/**
 * stdout, written off the request path: lines are buffered and written asynchronously by
 * 4 KB (one write for dozens of lines under load instead of one per line), flushed every
 * 100 ms at low traffic and synchronously when the process exits (pino registers that).
 */
function defaultDestination(): DestinationStream {
  return loadPino().pino.destination({ dest: process.stdout.fd ?? 1, sync: false, minLength: BUFFER_BYTES, periodicFlush: FLUSH_EVERY_MS });
}

export interface LoggingOptions extends ServerLoggerOptions {
  /** Path prefixes never logged (default `/health`, `/ready`, `/metrics`), with and without `basePath`. */
  skipPaths?: string[];
  basePath?: string;
  /** An existing pino logger; `level`/`destination` are then ignored. */
  logger?: PinoLogger;
  /** Query values in the request line: `redact` (default: every value, and bare names) or `log` (all but credentials' names). */
  queryValues?: QueryValueLogging;
}

/**
 * Request logging (order 3): one `request completed` line per request with method,
 * URL (query values redacted unless `queryValues: "log"`), status and duration; never headers. Every
 * line carries `requestId`; handlers reach the same logger through `requestLogger(ctx)`.
 *
 * @example
 * adapter.registerMiddleware(createLoggingMiddleware({ level: "info", skipPaths: ["/health", "/internal"] }));
 */
export function createLoggingMiddleware(options: LoggingOptions = {}): MiddlewareDefinition & { logger: PinoLogger } {
  const logger = options.logger ?? createServerLogger(options);
  // The request line holds only this middleware's own fields (the URL's credentials already
  // replaced), so it skips pino's redaction pass: measured at ≈ 6× the cost of the rest of
  // the line with the wildcard paths of REDACT_PATHS. Every other line is still redacted.
  const lineLogger = logger.child({}, { redact: [], level: "trace" });
  const skipPaths = options.skipPaths ?? DEFAULT_LOG_SKIP_PATHS;
  const basePath = options.basePath ?? "";
  const queryValues = options.queryValues ?? "redact";
  const writeLine = (ctx: ServerContext, status: number) => {
    const line = {
      requestId: ctx.requestId,
      method: ctx.method,
      url: redactedUrl(ctx.path, ctx.query, queryValues),
      clientAddress: ctx.clientAddress,
      status,
      durationMs: Math.round((performance.now() - ctx.startTime) * 100) / 100,
      ...(ctx.response.streaming ? { streaming: true } : {}),
    };
    // The level is the logger's own (it may change at run time); the sibling only writes.
    if (status >= 500) {
      if (logger.isLevelEnabled("warn")) lineLogger.warn(line, "request completed");
    } else if (logger.isLevelEnabled("info")) lineLogger.info(line, "request completed");
  };
  return middlewareFromHooks(
    {
      name: "logging",
      order: 3,
      logger,
      // Out of the skipped paths' chains; the check below covers a `basePath` other than the server's.
      excludePaths: prefixFilters(skipPaths),
    },
    {
      before: (ctx) => {
        if (matchesPathPrefix(ctx.path, skipPaths, basePath)) return PASSED_ON;
        // The child logger is built only when someone logs through it: most requests log one line.
        ctx.state[REQUEST_LOGGER_STATE_KEY] = new RequestLogger(logger, ctx);
        return TAKES_PART;
      },
      after: (ctx) => writeLine(ctx, ctx.response.status),
      failed: (ctx, error) => {
        // The error is still in flight: the core answers it with this status.
        writeLine(ctx, ServerAdapterError.isInstance(error) ? error.statusCode : 500);
        throw error;
      },
    },
  );
}
