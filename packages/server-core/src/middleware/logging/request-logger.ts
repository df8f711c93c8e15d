import type { ServerContext } from "../../contracts/context.js";
import type { Logger } from "../../core/logger.js";

/** `ctx.state` key of the per-request logger (bound to the request id) set by the logging middleware. */
export const REQUEST_LOGGER_STATE_KEY = "conduit.logger";

/**
 * The request's logger (every line carries `requestId`), or undefined when the
 * logging middleware is off or skipped this path.
 *
 * @example
 * handler: (ctx) => { requestLogger(ctx)?.info({ tool: "search" }, "tool called"); }
 */
export function requestLogger(ctx: Pick<ServerContext, "state">): Logger | undefined {
  return ctx.state[REQUEST_LOGGER_STATE_KEY] as Logger | undefined;
}
