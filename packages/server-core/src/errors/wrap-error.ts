import { HandlerError, middlewareError } from "./server-errors.js";
import { ServerAdapterError } from "./server-adapter-error.js";

/**
 * Returns a server error unchanged and wraps anything else as `HandlerError`.
 * The wrapper's message is generic on purpose: internal messages never reach clients.
 */
export function wrapError(error: unknown, context: { requestId?: string; path?: string; method?: string } = {}): ServerAdapterError {
  if (ServerAdapterError.isInstance(error)) {
    // A frozen error cannot take the id; the envelope carries it anyway.
    if (context.requestId !== undefined && error.requestId === undefined && Object.isExtensible(error)) error.requestId = context.requestId;
    return error;
  }
  return new HandlerError("Internal server error", { ...context, cause: error });
}

/**
 * `wrapError` for the request pipeline. The core turns whatever a route handler throws into
 * `HandlerError` before it travels back out through the middleware, so anything else that is
 * not a server error was thrown by a middleware itself: 500 `MIDDLEWARE_ERROR`.
 *
 * @example
 * catch (thrown) { throw wrapPipelineError(thrown, { requestId: ctx.requestId }); }
 */
export function wrapPipelineError(
  error: unknown,
  context: { requestId?: string; path?: string; method?: string } = {},
): ServerAdapterError {
  if (ServerAdapterError.isInstance(error)) return wrapError(error, context);
  const wrapped = middlewareError(error);
  if (context.requestId !== undefined) wrapped.requestId = context.requestId;
  if (context.path !== undefined) wrapped.path = context.path;
  if (context.method !== undefined) wrapped.method = context.method;
  return wrapped;
}
