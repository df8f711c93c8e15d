import { wrapPipelineError } from "../../errors/wrap-error.js";
import type { WrittenError } from "../../contracts/error-writer.js";
import type { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { type ErrorFormatOptions, errorBodyJson, errorResponse, lastResortErrorJson } from "./envelope.js";
import { ERROR_HANDLING_STATE_KEY, type RequestErrorHandling } from "./error-handling-state.js";
import { discardEventStream } from "../streams/event-stream-response.js";
import type { ErrorShapeTable } from "./error-shapes.js";
import type { Logger } from "../lifecycle/logger.js";
import { type RequestContext, setOwn } from "../pipeline/request-context.js";
import type { OutgoingResponse } from "../pipeline/request-io.js";

/** What error shaping needs of the request handler (read at each call: the logger can be swapped). */
export interface ErrorSink {
  readonly logger: Logger;
  readonly errorFormat: ErrorFormatOptions;
  emitSafe(event: string, payload: unknown): void;
  /** Writers of surfaces with their own error shape (a vendor API's on a proxy), by path. */
  readonly errorShapes?: ErrorShapeTable;
}

/** Logs without ever throwing: a logger choking on a hostile value must not take the answer with it. */
export function logSafely(logger: Logger, level: "error" | "warn", fields: Record<string, unknown>, message: string): void {
  try {
    logger[level](fields, message);
  } catch {
    try {
      const { err: _err, ...rest } = fields;
      logger[level](rest, message);
    } catch {
      // Nothing left to tell.
    }
  }
}

/** Logs a server error (unless the error-handling middleware did) and emits the adapter's `error` event. */
export function reportServerError(
  sink: ErrorSink,
  context: RequestContext,
  error: ServerAdapterError,
  cause: unknown,
  alreadyLogged = false,
): void {
  if (!alreadyLogged)
    logSafely(sink.logger, "error", { requestId: context.requestId, code: error.code, path: context.path, err: cause }, "request failed");
  let reported: unknown = error;
  try {
    if (cause instanceof Error) reported = cause;
  } catch {
    // A Proxy whose traps throw: report the wrapper.
  }
  sink.emitSafe("error", { requestId: context.requestId, error: reported, timestamp: Date.now() });
}

/**
 * The one place a failure becomes the error envelope on `context.response`, keeping headers
 * middleware already set (security, CORS, request id). It cannot throw: when shaping the
 * real error fails (a hostile value in it, a logger that throws), the constant 500 envelope
 * is sent instead.
 */
export function applyErrorResponse(sink: ErrorSink, context: RequestContext, thrown: unknown): void {
  const response = context.response;
  try {
    const error = wrapPipelineError(thrown, { requestId: context.requestId, path: context.path, method: context.method });
    // The error-handling middleware leaves its options here and has already logged the error.
    const handling = context.state[ERROR_HANDLING_STATE_KEY] as RequestErrorHandling | undefined;
    if (error.statusCode >= 500) reportServerError(sink, context, error, thrown, handling?.logged === true);
    const format = handling ? { ...sink.errorFormat, includeStack: handling.includeStack } : sink.errorFormat;
    const { status, headers, body } = errorResponse(error, context.requestId, format);
    const written = writeShaped(sink, context, error);
    discardEventStream(context);
    response.status = written?.status ?? status;
    for (const [name, value] of Object.entries(headers)) setOwn(response.headers, name, value);
    if (written?.headers) for (const [name, value] of Object.entries(written.headers)) setOwn(response.headers, name.toLowerCase(), value);
    if (response.status === 413) response.headers.connection = "close";
    response.body = written?.body ?? errorBodyJson(body);
    response.streaming = false;
  } catch (failure) {
    logSafely(sink.logger, "error", { err: failure, requestId: context.requestId }, "error shaping failed");
    response.status = 500;
    response.headers["content-type"] = "application/json; charset=utf-8";
    response.body = lastResortErrorJson(context.requestId);
    response.streaming = false;
  }
}

/**
 * The error in the shape of the surface owning the path, if one does. A writer that fails (or
 * answers a status that is not an error) leaves the envelope in place: never a crash.
 */
function writeShaped(sink: ErrorSink, context: RequestContext, error: ServerAdapterError): WrittenError | undefined {
  const write = sink.errorShapes?.find(context.path);
  if (!write) return undefined;
  try {
    const written = write(error, { requestId: context.requestId, method: context.method, path: context.path, headers: context.headers });
    if (!Number.isInteger(written.status) || written.status < 400 || written.status > 599 || typeof written.body !== "string")
      return undefined;
    return written;
  } catch (failure) {
    logSafely(sink.logger, "warn", { err: failure, requestId: context.requestId }, "error writer failed; the envelope was sent");
    return undefined;
  }
}

/**
 * The answer when building the real one failed: constants only, so it cannot fail too.
 * `release` runs once, when the bridge is done with it.
 */
export function lastResortResponse(requestId: string, release: () => void): OutgoingResponse {
  let finished = false;
  return {
    status: 500,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-request-id": /^[A-Za-z0-9._:-]{1,128}$/.test(requestId) ? requestId : "unknown",
    },
    body: lastResortErrorJson(requestId),
    streaming: false,
    done: () => {
      if (finished) return;
      finished = true;
      release();
    },
  };
}
