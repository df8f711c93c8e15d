import { HandlerError } from "./server-errors.js";
import { ServerAdapterError } from "./server-adapter-error.js";

/**
 * Returns a server error unchanged and wraps anything else as `HandlerError`.
 * The wrapper's message is generic on purpose: internal messages never reach clients.
 */
export function wrapError(error: unknown, context: { requestId?: string; path?: string; method?: string } = {}): ServerAdapterError {
  if (ServerAdapterError.isInstance(error)) {
    if (context.requestId !== undefined && error.requestId === undefined) error.requestId = context.requestId;
    return error;
  }
  return new HandlerError("Internal server error", { ...context, cause: error });
}
