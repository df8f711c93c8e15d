import type { IncomingHeaders } from "../contracts/context.js";
import { DATA_STREAM_EVENT_TYPES, type DataStreamEvent } from "../contracts/stream-event.js";
import type { ResponseHeaders } from "../contracts/http.js";
import { wrapError } from "../errors/wrap-error.js";

export type StreamFormat = "sse" | "ndjson";

const eventTypes = new Set<string>(DATA_STREAM_EVENT_TYPES);

/** NDJSON when the client asks for it (`Accept: application/x-ndjson` or `?format=ndjson`), SSE otherwise. */
export function negotiateStreamFormat(headers: IncomingHeaders, query: Record<string, string | string[]>): StreamFormat {
  if (query.format === "ndjson") return "ndjson";
  if (query.format === "sse") return "sse";
  const accept = headers.accept;
  const value = Array.isArray(accept) ? accept.join(",") : (accept ?? "");
  return value.includes("application/x-ndjson") ? "ndjson" : "sse";
}

export function streamHeaders(format: StreamFormat): ResponseHeaders {
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

/** A field value without line breaks (checked first: nearly every value has none). */
function singleLine(value: string): string {
  return value.includes("\n") || value.includes("\r") ? value.replace(/[\r\n]/g, "") : value;
}

/** One SSE frame. `event` and `id` are stripped of line breaks so no field can inject another event. */
export function encodeSseFrame(event: DataStreamEvent): string {
  const id = event.id === undefined ? "" : `id: ${singleLine(String(event.id))}\n`;
  return `event: ${singleLine(event.type)}\n${id}data: ${JSON.stringify(event)}\n\n`;
}

export function encodeNdjsonLine(event: DataStreamEvent): string {
  return `${JSON.stringify(event)}\n`;
}

const SSE_KEEP_ALIVE = ": keep-alive\n\n";
const NDJSON_KEEP_ALIVE = `${JSON.stringify({ type: "keep-alive" })}\n`;

export interface EncodeStreamOptions {
  format: StreamFormat;
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
}

/**
 * Encodes a handler's async iterable as SSE or NDJSON text chunks, pulled one at a
 * time (so the writer's backpressure reaches the source). Guarantees the last event is
 * `finish` or `error`, interleaves keep-alive comments while the source is idle, and
 * stops the source when the client goes away.
 */
export async function* encodeEventStream(source: AsyncIterable<unknown>, options: EncodeStreamOptions): AsyncGenerator<string> {
  const encodeFrame = options.format === "sse" ? encodeSseFrame : encodeNdjsonLine;
  const transform = options.transformEvent;
  const encode = transform ? (event: DataStreamEvent) => encodeFrame(transform(event)) : encodeFrame;
  const keepAlive = options.format === "sse" ? SSE_KEEP_ALIVE : NDJSON_KEEP_ALIVE;
  const iterator = source[Symbol.asyncIterator]();
  const idle = new IdleTicker(options.keepAliveMs);
  let lastType: string | undefined;
  let ended = false;
  try {
    while (!options.signal.aborted) {
      const next = iterator.next();
      let result: IteratorResult<unknown> | "tick";
      do {
        result = await idle.race(next);
        if (result === "tick") yield keepAlive;
      } while (result === "tick" && !options.signal.aborted);
      if (result === "tick" || result.done) break;
      const event = toStreamEvent(result.value);
      lastType = event.type;
      yield encode(event);
      if (event.type === "finish" || event.type === "error") break;
    }
    if (!options.signal.aborted && lastType !== "finish" && lastType !== "error") {
      yield encode({ type: "finish", timestamp: Date.now(), data: { reason: "stop" } });
    }
    ended = !options.signal.aborted;
  } catch (error) {
    if (options.signal.aborted) return;
    options.onError?.(error);
    const wrapped = wrapError(error);
    yield encode({ type: "error", timestamp: Date.now(), data: { code: wrapped.code, message: wrapped.message } });
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
  private wake: ((value: "tick") => void) | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(intervalMs: number) {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.wake && Date.now() - this.lastEvent >= intervalMs) {
        this.lastEvent = Date.now();
        this.wake("tick");
      }
    }, Math.max(1, Math.floor(intervalMs / 2)));
    this.timer.unref();
  }

  /** `next`'s result, or "tick" once the source has been silent for the interval. */
  race<T>(next: Promise<T>): Promise<T | "tick"> {
    if (this.timer === undefined) return next;
    return new Promise<T | "tick">((resolve, reject) => {
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
  }
}
