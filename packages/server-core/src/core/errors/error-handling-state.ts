/**
 * What the error-handling middleware leaves in `ctx.state` for the core's one error
 * formatter (`RequestHandler.applyError` → `errorResponse`), so errors are shaped in
 * exactly one place whatever middleware is installed.
 */
export interface RequestErrorHandling {
  /** Adds `error.stack` to the envelope. */
  includeStack: boolean;
  /** The middleware already logged the error; the core only emits the `error` event. */
  logged: boolean;
}

/** The `ctx.state` key of `RequestErrorHandling`. */
export const ERROR_HANDLING_STATE_KEY = "conduit.errorHandling";
