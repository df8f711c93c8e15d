import type { ServerContext } from "../contracts/context.js";
import { StreamAbortedError } from "../errors/server-errors.js";
import type { Logger } from "./logger.js";
import { encodeEventStream, negotiateStreamFormat, streamHeaders } from "./stream-encoding.js";
import { type StreamEventTransform, streamEventTransformFor } from "./stream-redaction.js";

const STREAM_STATE = "conduit.eventStream";

export interface EventStreamOptions {
  keepAliveMs: number;
  /** `config.redaction` as a transform (undefined when disabled). */
  redactor: StreamEventTransform | undefined;
  logger: Logger;
  onError: (error: unknown) => void;
}

/**
 * Turns a handler's async iterable into the streamed response: negotiated format,
 * DESIGN §3 headers, redaction and the per-request transforms, keep-alives, and the
 * disconnect bookkeeping of `recordStreamAbort`.
 */
export function applyEventStream(context: ServerContext, source: AsyncIterable<unknown>, options: EventStreamOptions): void {
  const format = negotiateStreamFormat(context.headers, context.query);
  const response = context.response;
  response.status = 200;
  Object.assign(response.headers, streamHeaders(format));
  response.streaming = true;
  response.body = encodeEventStream(source, {
    format,
    keepAliveMs: options.keepAliveMs,
    signal: context.abortSignal,
    onError: options.onError,
    transformEvent: streamEventTransformFor(context, options.redactor),
    onAbort: () => recordStreamAbort(context, options.logger),
    onComplete: () => {
      context.state[STREAM_STATE] = "complete";
    },
  });
  context.state[STREAM_STATE] = "open";
}

/**
 * A client gone before the last event is expected, not a failure: the handler's signal is
 * aborted with `StreamAbortedError` (so it stops upstream work), the status becomes 499 for
 * the `response` event (metrics), and it is logged at info — never an `error` event.
 * Idempotent; a no-op for anything but an open event stream.
 */
export function recordStreamAbort(context: ServerContext, logger: Logger): void {
  if (context.state[STREAM_STATE] !== "open") return;
  context.state[STREAM_STATE] = "aborted";
  const reason = new StreamAbortedError();
  if (!context.abortSignal.aborted) context.abortController.abort(reason);
  context.response.status = reason.statusCode;
  logger.info({ requestId: context.requestId, code: reason.code, statusCode: reason.statusCode, path: context.path }, "stream aborted by client");
}
