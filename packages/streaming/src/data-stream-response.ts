import type { DataStreamEvent, ServerContext, TokenUsage } from "@conduit-ai/server-core";
import { STREAM_KEEP_ALIVE_MS, type StreamFormat, encodeEventStream, streamEventTransformFor } from "@conduit-ai/server-core/web";
import { AsyncQueue } from "./async-queue.js";
import { DataStreamWriter, type DataStreamWriterOptions } from "./data-stream-writer.js";

export interface StreamResponseOptions extends DataStreamWriterOptions {
  /** Closes the stream when aborted — pass `ctx.abortSignal` so a disconnect ends the writes. */
  signal?: AbortSignal;
  /**
   * Keep-alive interval in ms; 0 disables. Returned from a handler, it overrides the server's
   * `config.streaming.keepAliveMs` for this response (unset, the server's applies); `encode()`
   * defaults to 15 000.
   */
  keepAliveMs?: number;
  /**
   * Produces the events; started when the consumer begins reading. A throw becomes an
   * `error` event (and is reported by the core); returning without `finish()` closes the stream.
   */
  execute?: (stream: DataStreamResponse) => Promise<void> | void;
  /**
   * The request the stream answers (`ctx`), for `encode()`: its chunks then go through
   * `config.redaction` and any `createStreamRedactionMiddleware`, as when the core serves the
   * stream (which applies them itself to a stream the handler returns).
   */
  context?: Pick<ServerContext, "state">;
}

export interface FinishInput {
  reason?: string;
  usage?: TokenUsage;
}

/**
 * A streamed response a route handler returns as is: it is an async iterable of
 * `DataStreamEvent`s, so the core negotiates SSE/NDJSON, sets the headers, sends
 * keep-alives and aborts on disconnect identically on every adapter.
 *
 * @example
 * handler: (ctx) => createStreamResponse({
 *   signal: ctx.abortSignal,
 *   execute: async (stream) => {
 *     await stream.writeTextStart("t1");
 *     await stream.writeTextDelta("t1", "Hello");
 *     await stream.writeTextEnd("t1");
 *     await stream.finish({ reason: "stop" });
 *   },
 * })
 */
export class DataStreamResponse extends DataStreamWriter implements AsyncIterable<DataStreamEvent> {
  private readonly queue: AsyncQueue<DataStreamEvent>;
  private readonly options: StreamResponseOptions;
  private started = false;

  constructor(options: StreamResponseOptions = {}) {
    // The consumer stopping early (client gone) closes the writer; `this` exists only after super().
    const owner: { stream?: DataStreamResponse } = {};
    const queue = new AsyncQueue<DataStreamEvent>({ onCancel: () => owner.stream?.close() });
    super((event) => queue.push(event), options);
    owner.stream = this;
    this.queue = queue;
    this.options = options;
    const signal = options.signal;
    if (signal?.aborted) this.abort();
    else signal?.addEventListener("abort", () => this.abort(), { once: true });
  }

  /** The last event: `finish` with `{reason, usage?}` (reason defaults to `stop`), then close. */
  async finish(input: FinishInput = {}): Promise<void> {
    const pending = this.write("finish", { reason: input.reason ?? "stop", ...(input.usage ? { usage: input.usage } : {}) });
    this.close();
    await pending;
  }

  override close(): void {
    super.close();
    this.queue.close();
  }

  /** What the core reads to honour `keepAliveMs` when a handler returns this stream. */
  get [STREAM_KEEP_ALIVE_MS](): number | undefined {
    return this.options.keepAliveMs;
  }

  /** Events not yet pulled by the consumer (bounded by the number of unawaited writes). */
  get bufferedCount(): number {
    return this.queue.size;
  }

  /** The events, for a handler to `return stream.toIterable()` (returning the stream itself works too). */
  toIterable(): AsyncIterable<DataStreamEvent> {
    return this;
  }

  /**
   * Encoded chunks outside the core (e.g. a raw Node response), with keep-alives and the
   * finish/error guarantee; redacted like a core-served stream when `context` was given.
   */
  encode(format: StreamFormat = "sse"): AsyncGenerator<string> {
    const context = this.options.context;
    return encodeEventStream(this, {
      format,
      keepAliveMs: this.options.keepAliveMs ?? 15_000,
      signal: this.options.signal ?? new AbortController().signal,
      transformEvent: context ? streamEventTransformFor(context) : undefined,
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<DataStreamEvent> {
    if (!this.started && this.options.execute) {
      this.started = true;
      const execute = this.options.execute;
      Promise.resolve()
        .then(() => execute(this))
        .then(
          () => this.close(),
          (error: unknown) => {
            super.close();
            this.queue.fail(error);
          },
        );
    }
    return this.queue;
  }

  private abort(): void {
    super.close();
    this.queue.cancel();
  }
}

/**
 * @example
 * handler: (ctx) => createStreamResponse({ signal: ctx.abortSignal, execute: async (s) => { await s.writeData({ n: 1 }); } })
 */
export function createStreamResponse(options: StreamResponseOptions = {}): DataStreamResponse {
  return new DataStreamResponse(options);
}
