import type { ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { TAKES_PART, middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";
import { ERROR_HANDLING_STATE_KEY, type RequestErrorHandling } from "../core/errors/error-handling-state.js";
import type { Logger } from "../core/lifecycle/logger.js";
import type { ServerAdapterError } from "../errors/server-adapter-error.js";
import { wrapPipelineError } from "../errors/wrap-error.js";
import { requestLogger } from "./logging/request-logger.js";

export interface ErrorHandlingOptions {
  /** Adds `error.stack` to the envelope (default false; never in production). */
  includeStack?: boolean;
  /** Logs each error once: 5xx at `error` with its cause, 4xx at `info` (default true). */
  logErrors?: boolean;
  /** Called with every error before it is sent; a hook that throws is ignored. */
  onError?: (error: ServerAdapterError, ctx: ServerContext) => void | Promise<void>;
  /** Logger to use; default the request's logger from the logging middleware, else the core's. */
  logger?: Logger;
}

/**
 * Error handling (order 1): catches what the inner middleware and the handler throw,
 * calls `onError`, logs it (method, path without query, code — never headers or
 * secrets), and rethrows to the core's single formatter, which builds the one error
 * envelope (`{error:{code,message,category,requestId,…}, metadata}`) keeping headers
 * already set.
 *
 * @example
 * adapter.registerMiddleware(createErrorHandlingMiddleware({ onError: (error) => metrics.count(error.code) }));
 */
export function createErrorHandlingMiddleware(options: ErrorHandlingOptions = {}): MiddlewareDefinition {
  const includeStack = options.includeStack ?? false;
  const logErrors = options.logErrors ?? true;
  // Shared by every request until one fails: the success path allocates nothing.
  const notLogged: RequestErrorHandling = Object.freeze({ includeStack, logged: false });
  return middlewareFromHooks(
    { name: "error-handling", order: 1 },
    {
      before: (ctx) => {
        ctx.state[ERROR_HANDLING_STATE_KEY] = notLogged;
        return TAKES_PART;
      },
      failed: async (ctx, thrown) => {
        const handling: RequestErrorHandling = { includeStack, logged: false };
        ctx.state[ERROR_HANDLING_STATE_KEY] = handling;
        const error = wrapPipelineError(thrown, { requestId: ctx.requestId, path: ctx.path, method: ctx.method });
        if (options.onError) {
          try {
            await options.onError(error, ctx);
          } catch {
            // A failing hook must not replace the original error.
          }
        }
        const own = requestLogger(ctx);
        const logger = options.logger ?? own;
        // Without a logger here the core logs server errors itself; with logErrors off nobody does.
        if (!logErrors) handling.logged = true;
        else if (logger) {
          // The request's own logger binds `requestId` already: a second one would repeat the key in one JSON object.
          const fields = {
            ...(logger === own ? {} : { requestId: ctx.requestId }),
            method: ctx.method,
            path: ctx.path,
            status: error.statusCode,
            code: error.code,
          };
          try {
            if (error.statusCode >= 500) logger.error({ ...fields, err: thrown }, "request failed");
            else logger.info(fields, error.message);
            handling.logged = true;
          } catch {
            // A cause the logger cannot serialize: the core logs what it can.
          }
        }
        throw error;
      },
    },
  );
}
