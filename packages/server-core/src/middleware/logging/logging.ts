import { performance } from "node:perf_hooks";
import { type DestinationStream, type Logger as PinoLogger, pino } from "pino";
import type { LogLevel } from "../../contracts/config.js";
import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition, Next } from "../../contracts/middleware.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { matchesPathPrefix, prefixFilters } from "../path-prefix.js";
import { REDACTED, REDACT_PATHS, redactedUrl } from "./redact.js";
import { REQUEST_LOGGER_STATE_KEY } from "./request-logger.js";

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
  const settings = { level: options.level ?? "info", base: null, redact: { paths: REDACT_PATHS, censor: REDACTED } };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export interface LoggingOptions extends ServerLoggerOptions {
  /** Path prefixes never logged (default `/health`, `/ready`, `/metrics`), with and without `basePath`. */
  skipPaths?: string[];
  basePath?: string;
  /** An existing pino logger; `level`/`destination` are then ignored. */
  logger?: PinoLogger;
}

/**
 * Request logging (order 3): one `request completed` line per request with method,
 * URL (credential query values redacted), status and duration; never headers. Every
 * line carries `requestId`; handlers reach the same logger through `requestLogger(ctx)`.
 *
 * @example
 * adapter.registerMiddleware(createLoggingMiddleware({ level: "info", skipPaths: ["/health", "/internal"] }));
 */
export function createLoggingMiddleware(options: LoggingOptions = {}): MiddlewareDefinition & { logger: PinoLogger } {
  const logger = options.logger ?? createServerLogger(options);
  const skipPaths = options.skipPaths ?? DEFAULT_LOG_SKIP_PATHS;
  const basePath = options.basePath ?? "";
  const logRequest = async (ctx: ServerContext, next: Next): Promise<void> => {
    // The child logger is built only when someone asks for it: most requests log one line.
    let child: PinoLogger | undefined;
    Object.defineProperty(ctx.state, REQUEST_LOGGER_STATE_KEY, {
      get: () => (child ??= logger.child({ requestId: ctx.requestId })),
      configurable: true,
    });
    let status = 500;
    try {
      await next();
      status = ctx.response.status;
    } catch (error) {
      // The error is still in flight: the core answers it with this status.
      if (ServerAdapterError.isInstance(error)) status = error.statusCode;
      throw error;
    } finally {
      const line = {
        requestId: ctx.requestId,
        method: ctx.method,
        url: redactedUrl(ctx.path, ctx.query),
        status,
        durationMs: Math.round((performance.now() - ctx.startTime) * 100) / 100,
        ...(ctx.response.streaming ? { streaming: true } : {}),
      };
      if (status >= 500) logger.warn(line, "request completed");
      else logger.info(line, "request completed");
    }
  };
  return {
    name: "logging",
    order: 3,
    logger,
    // Out of the skipped paths' chains; the check below covers a `basePath` other than the server's.
    excludePaths: prefixFilters(skipPaths),
    handler: (ctx, next) => (matchesPathPrefix(ctx.path, skipPaths, basePath) ? next() : logRequest(ctx, next)),
  };
}
