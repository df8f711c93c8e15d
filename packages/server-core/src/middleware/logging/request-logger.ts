import type { Logger as PinoLogger } from "pino";
import type { ServerContext } from "../../contracts/context.js";
import type { Logger } from "../../core/lifecycle/logger.js";

/** `ctx.state` key of the per-request logger (bound to the request id) set by the logging middleware. */
export const REQUEST_LOGGER_STATE_KEY = "conduit.logger";

/**
 * The request's logger: every line carries `requestId`. The pino child behind it is made on
 * first use, so a request that logs nothing but its completion line (nearly all) pays for
 * one small object, not for a child logger or an accessor defined per request.
 */
export class RequestLogger implements Logger {
  #child: PinoLogger | undefined;

  constructor(
    private readonly base: PinoLogger,
    /** Read on first use: a later middleware may still set the id. */
    private readonly context: Pick<ServerContext, "requestId">,
  ) {}

  /** The pino child logger bound to this request's id (for pino's full API). */
  get pino(): PinoLogger {
    this.#child ??= this.base.child({ requestId: this.context.requestId });
    return this.#child;
  }

  trace(object: object, message?: string): void {
    this.pino.trace(object, message);
  }

  debug(object: object, message?: string): void {
    this.pino.debug(object, message);
  }

  info(object: object, message?: string): void {
    this.pino.info(object, message);
  }

  warn(object: object, message?: string): void {
    this.pino.warn(object, message);
  }

  error(object: object, message?: string): void {
    this.pino.error(object, message);
  }

  fatal(object: object, message?: string): void {
    this.pino.fatal(object, message);
  }

  child(bindings: Record<string, unknown>): PinoLogger {
    return this.pino.child(bindings);
  }
}

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
