import type { IncomingHeaders } from "../../contracts/context.js";
import { DATA_STREAM_EVENT_TYPES, type DataStreamEvent } from "../../contracts/stream-event.js";
import type { ResponseHeaders } from "../../contracts/http.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { StreamingError } from "../../errors/server-errors.js";
import { onSharedAbort } from "../pipeline/abort-fan-out.js";
import { formatNdjsonLine } from "./ndjson-line.js";
import { formatSseComment, formatSseFrame } from "./sse-frame.js";
import {
  UI_MESSAGE_STREAM_FORMAT,
  UI_MESSAGE_STREAM_HEADERS,
  UI_MESSAGE_STREAM_REQUEST_HEADER,
  UiMessageStreamEncoder,
} from "./ui-message-stream.js";

export type StreamFormat = "sse" | "ndjson";
/** What a streamed route may answer in: the two Conduit encodings, or the AI SDK's UI message stream (`ui-message`). */
export type EventStreamFormat = StreamFormat | "ui-message";

const eventTypes = new Set<string>(DATA_STREAM_EVENT_TYPES);

/** NDJSON when the client asks for it (`Accept: application/x-ndjson` or `?format=ndjson`), SSE otherwise. */
export function negotiateStreamFormat(headers: IncomingHeaders, query: Record<string, string | string[]>): StreamFormat {
  if (query.format === "ndjson") return "ndjson";
  if (query.format === "sse") return "sse";
  return acceptsNdjson(headers) ? "ndjson" : "sse";
}

function acceptsNdjson(headers: IncomingHeaders): boolean {
  const accept = headers.accept;
  const value = Array.isArray(accept) ? accept.join(",") : (accept ?? "");
  return value.includes("application/x-ndjson");
}

const EVENT_STREAM_FORMATS = new Set<string>(["sse", "ndjson", UI_MESSAGE_STREAM_FORMAT]);

/**
 * The format of an event stream: what the client names wins (`?format=`, then the header
 * `x-conduit-stream-format`, then an NDJSON `Accept`); otherwise the route's `preferred` format
 * (`/agent/stream` prefers the UI message stream for a `useChat` body), otherwise SSE.
 */
export function negotiateEventStreamFormat(
  headers: IncomingHeaders,
  query: Record<string, string | string[]>,
  preferred?: EventStreamFormat,
): EventStreamFormat {
  const named = [query.format, headers[UI_MESSAGE_STREAM_REQUEST_HEADER]].find(
    (value): value is string => typeof value === "string" && EVENT_STREAM_FORMATS.has(value),
  );
  if (named !== undefined) return named as EventStreamFormat;
  if (acceptsNdjson(headers)) return "ndjson";
  return preferred ?? "sse";
}

export function streamHeaders(format: EventStreamFormat): ResponseHeaders {
  if (format === "ui-message") return { ...UI_MESSAGE_STREAM_HEADERS };
  return {
    "content-type": format === "sse" ? "text/event-stream; charset=utf-8" : "application/x-ndjson; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  };
}

/** Anything a handler yields becomes a `DataStreamEvent`; non-events travel as `data`. */
export function toStreamEvent(item: unknown): DataStreamEvent {
  if (typeof item === "object" && item !== null && eventTypes.has((item as { type?: string }).type ?? "")) {
    const event = item as DataStreamEvent;
    return event.timestamp === undefined ? { ...event, timestamp: Date.now() } : event;
  }
  return { type: "data", timestamp: Date.now(), data: item };
}

/** One SSE frame of a `DataStreamEvent`: `event: <type>`, its `id`, the whole event as `data` (framed by `formatSseFrame`). */
export function encodeSseFrame(event: DataStreamEvent): string {
  const data = JSON.stringify(event);
  return formatSseFrame(event.id === undefined ? { event: event.type, data } : { event: event.type, id: String(event.id), data });
}

/** One NDJSON line of a `DataStreamEvent`: the same whole event the SSE frame carries as `data` (framed by `formatNdjsonLine`). */
export function encodeNdjsonLine(event: DataStreamEvent): string {
  return formatNdjsonLine(event);
}

const SSE_KEEP_ALIVE = formatSseComment("keep-alive");
const NDJSON_KEEP_ALIVE = formatNdjsonLine({ type: "keep-alive" });

/**
 * The keep-alive of a format: the SSE comment `: keep-alive`, or the NDJSON line `{"type":"keep-alive"}`.
 *
 * @example
 * setInterval(() => push(encodeKeepAlive("sse")), 15_000);
 */
export function encodeKeepAlive(format: EventStreamFormat): string {
  return format === "sse" ? SSE_KEEP_ALIVE : NDJSON_KEEP_ALIVE;
}

export interface EncodeStreamOptions {
  format: EventStreamFormat;
  keepAliveMs: number;
  signal: AbortSignal;
  /** Called with a failure raised by the source mid-stream (already sent as an `error` event). */
  onError?: (error: unknown) => void;
  /** Applied to every event before encoding (stream redaction). */
  transformEvent?: (event: DataStreamEvent) => DataStreamEvent;
  /**
   * Called once when the stream ends before its last event (client gone: the signal
   * aborted or the consumer stopped pulling), so the caller can abort the handler and record it.
   */
  onAbort?: () => void;
  /** Called once when the last event (`finish` or `error`) was delivered. */
  onComplete?: () => void;
  /**
   * Aborted when the server shuts down with this stream still running: the stream sends this
   * final `error` event (`SERVER_SHUTTING_DOWN`) at once and ends, and `onInterrupt` runs so
   * the caller can stop the handler's upstream work.
   */
  shutdownSignal?: AbortSignal;
  onInterrupt?: () => void;
}

function frameEncoderFor(format: EventStreamFormat): (event: DataStreamEvent) => string {
  if (format === "sse") return encodeSseFrame;
  if (format === "ndjson") return encodeNdjsonLine;
  const encoder = new UiMessageStreamEncoder();
  return (event) => encoder.encode(event);
}

/** The `data` of the last event of a stream the shutdown ended. */
export const SHUTDOWN_EVENT_DATA = Object.freeze({
  code: "SERVER_SHUTTING_DOWN",
  message: "The server is shutting down; the stream ended before it finished. Retry the request.",
  reason: "server-shutdown",
  retryable: true,
});

/**
 * Encodes a handler's async iterable as SSE or NDJSON text chunks, pulled one at a
 * time (so the writer's backpressure reaches the source). Guarantees the last event is
 * `finish` or `error`, interleaves keep-alive comments while the source is idle, and
 * stops the source when the client goes away.
 */
export async function* encodeEventStream(source: AsyncIterable<unknown>, options: EncodeStreamOptions): AsyncGenerator<string> {
  const encodeFrame = frameEncoderFor(options.format);
  const transform = options.transformEvent;
  const encode = transform ? (event: DataStreamEvent) => encodeFrame(transform(event)) : encodeFrame;
  const keepAlive = options.format === "ndjson" ? NDJSON_KEEP_ALIVE : SSE_KEEP_ALIVE;
  const iterator = source[Symbol.asyncIterator]();
  const idle = new IdleTicker(options.keepAliveMs, options.shutdownSignal);
  let lastType: string | undefined;
  let ended = false;
  let interrupted = false;
  try {
    while (!options.signal.aborted) {
      if (idle.interrupted) break;
      const next = iterator.next();
      let result: IteratorResult<unknown> | "tick" | "interrupt";
      do {
        result = await idle.race(next);
        if (result === "tick") yield keepAlive;
      } while (result === "tick" && !options.signal.aborted);
      if (result === "tick" || result === "interrupt" || result.done) break;
      const event = toStreamEvent(result.value);
      lastType = event.type;
      yield encode(event);
      if (event.type === "finish" || event.type === "error") break;
    }
    if (!options.signal.aborted && idle.interrupted && lastType !== "finish" && lastType !== "error") {
      interrupted = true;
      lastType = "error";
      // Stops the handler's upstream work (which aborts `options.signal` too: `interrupted` remembers why).
      options.onInterrupt?.();
      yield encode({ type: "error", timestamp: Date.now(), data: { ...SHUTDOWN_EVENT_DATA } });
    }
    if (!options.signal.aborted && lastType !== "finish" && lastType !== "error") {
      yield encode({ type: "finish", timestamp: Date.now(), data: { reason: "stop" } });
    }
    ended = interrupted || !options.signal.aborted;
  } catch (error) {
    if (options.signal.aborted) return;
    // A deliberate server error keeps its code; anything else failed the stream itself.
    const wrapped = ServerAdapterError.isInstance(error) ? error : new StreamingError("Stream processing failed", { cause: error });
    try {
      options.onError?.(error);
    } catch {
      // Reporting must not cost the client its final event.
    }
    // Encoded without the per-request transform: the final event must leave even if that transform is what failed.
    yield encodeFrame({ type: "error", timestamp: Date.now(), data: { code: String(wrapped.code), message: String(wrapped.message) } });
    ended = true;
  } finally {
    idle.stop();
    if (ended) options.onComplete?.();
    else options.onAbort?.();
    // Not awaited: a source blocked on a dead upstream must not hold the response open.
    iterator.return?.()?.catch(() => undefined);
  }
}

/**
 * Tells a stream's encoder when its source has been silent for `intervalMs`, so it can send a
 * keep-alive. One timer per stream, checking every half interval, instead of a timer and a
 * race per event: a busy stream pays one small promise per event.
 */
class IdleTicker {
  private lastEvent = Date.now();
  private wake: ((value: "tick" | "interrupt") => void) | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly shutdownSignal: AbortSignal | undefined;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(intervalMs: number, shutdownSignal?: AbortSignal) {
    if (shutdownSignal && !shutdownSignal.aborted) {
      this.shutdownSignal = shutdownSignal;
      // Every open stream subscribes to the one server-wide signal: through a Set, not N listeners.
      this.unsubscribe = onSharedAbort(shutdownSignal, () => this.wake?.("interrupt"));
    }
    if (intervalMs <= 0) return;
    this.timer = setInterval(
      () => {
        if (this.wake && Date.now() - this.lastEvent >= intervalMs) {
          this.lastEvent = Date.now();
          this.wake("tick");
        }
      },
      Math.max(1, Math.floor(intervalMs / 2)),
    );
    // Web runtimes (Workers, Deno) return a number here: nothing to unref.
    (this.timer as { unref?: () => unknown }).unref?.();
  }

  /** True once the server's shutdown interrupted this stream. */
  get interrupted(): boolean {
    return this.shutdownSignal?.aborted === true;
  }

  /** `next`'s result, "tick" once the source has been silent for the interval, or "interrupt" at shutdown. */
  race<T>(next: Promise<T>): Promise<T | "tick" | "interrupt"> {
    if (this.timer === undefined && this.shutdownSignal === undefined) return next;
    if (this.interrupted) return Promise.resolve("interrupt");
    return new Promise<T | "tick" | "interrupt">((resolve, reject) => {
      this.wake = resolve;
      next.then(
        (value) => {
          this.wake = undefined;
          this.lastEvent = Date.now();
          resolve(value);
        },
        (error: unknown) => {
          this.wake = undefined;
          reject(error);
        },
      );
    });
  }

  stop(): void {
    this.wake = undefined;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
  }
}
