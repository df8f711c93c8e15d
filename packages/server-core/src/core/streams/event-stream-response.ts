import type { ServerContext } from "../../contracts/context.js";
import { ErrorCode } from "../../errors/codes.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { StreamAbortedError } from "../../errors/server-errors.js";
import type { Logger } from "../lifecycle/logger.js";
import { type EventStreamFormat, encodeEventStream, negotiateEventStreamFormat, streamHeaders } from "./stream-encoding.js";
import { PREFERRED_STREAM_FORMAT_STATE } from "./ui-message-stream.js";
import { type StreamEventTransform, streamEventTransformFor } from "./stream-redaction.js";

const STREAM_STATE = "conduit.eventStream";

/**
 * The property a streamed result carries to set its own keep-alive interval (ms; 0 disables),
 * overriding `config.streaming.keepAliveMs` for that response: `DataStreamResponse` sets it from
 * its `keepAliveMs` option. A symbol, so no ordinary iterable's own fields are taken for it.
 *
 * @example
 * const events = { [STREAM_KEEP_ALIVE_MS]: 5_000, async *[Symbol.asyncIterator]() { yield { type: "data", data: 1 } } };
 */
export const STREAM_KEEP_ALIVE_MS: unique symbol = Symbol.for("@conduit-ai/server-core/stream-keep-alive-ms");

/** The source's own keep-alive interval when it names a valid one, else `fallback`. */
function keepAliveOf(source: AsyncIterable<unknown>, fallback: number): number {
  const own = (source as { [STREAM_KEEP_ALIVE_MS]?: unknown })[STREAM_KEEP_ALIVE_MS];
  return typeof own === "number" && Number.isFinite(own) && own >= 0 ? own : fallback;
}

export interface EventStreamOptions {
  keepAliveMs: number;
  /** `config.redaction` as a transform (undefined when disabled). */
  redactor: StreamEventTransform | undefined;
  logger: Logger;
  onError: (error: unknown) => void;
  /** Aborted when the server's shutdown ends the streams still running (see `RequestHandler.interruptStreams`). */
  shutdownSignal?: AbortSignal;
}

/**
 * Turns a handler's async iterable into the streamed response: negotiated format,
 * docs/design.md §3 headers, redaction and the per-request transforms, keep-alives, and the
 * disconnect bookkeeping of `recordStreamAbort`.
 */
export function applyEventStream(context: ServerContext, source: AsyncIterable<unknown>, options: EventStreamOptions): void {
  const preferred = context.state[PREFERRED_STREAM_FORMAT_STATE] as EventStreamFormat | undefined;
  const format = negotiateEventStreamFormat(context.headers, context.query, preferred);
  const response = context.response;
  response.status = 200;
  Object.assign(response.headers, streamHeaders(format));
  response.streaming = true;
  response.body = encodeEventStream(source, {
    format,
    keepAliveMs: keepAliveOf(source, options.keepAliveMs),
    signal: context.abortSignal,
    onError: options.onError,
    transformEvent: streamEventTransformFor(context, options.redactor),
    onAbort: () => recordStreamAbort(context, options.logger),
    shutdownSignal: options.shutdownSignal,
    onInterrupt: () => {
      context.state[STREAM_STATE] = "complete";
      if (!context.abortSignal.aborted) context.abortController.abort(serverShuttingDown());
    },
    onComplete: () => {
      context.state[STREAM_STATE] = "complete";
    },
  });
  context.state[STREAM_STATE] = "open";
}

/** True while `context`'s response is an event stream that has not delivered its last event. */
export function isOpenEventStream(context: ServerContext): boolean {
  return context.state[STREAM_STATE] === "open";
}

/**
 * The pipeline replaced a stream it had not started sending (a middleware failed after the
 * handler returned it): release its source and forget it, so `done()` records no abort.
 */
export function discardEventStream(context: ServerContext): void {
  const body = context.response.body;
  if (!context.response.streaming || body === null || typeof body !== "object" || !(Symbol.asyncIterator in body)) return;
  if (context.state[STREAM_STATE] === "open") context.state[STREAM_STATE] = "discarded";
  try {
    const iterator = (body as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    iterator.return?.()?.catch(() => undefined);
  } catch {
    // Nothing to release.
  }
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
  logger.info(
    { requestId: context.requestId, code: reason.code, statusCode: reason.statusCode, path: context.path },
    "stream aborted by client",
  );
}

/** The abort reason a handler sees when the shutdown ended its stream. */
function serverShuttingDown(): ServerAdapterError {
  return new ServerAdapterError("The server is shutting down", {
    code: ErrorCode.SERVER_SHUTTING_DOWN,
    statusCode: 503,
    category: "EXECUTION",
    retryable: true,
  });
}
