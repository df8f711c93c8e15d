import type { DataStreamEvent, DataStreamEventType, ServerContext } from "@conduit-ai/server-core";
import {
  type StreamFormat,
  encodeKeepAlive,
  encodeNdjsonLine,
  encodeSseFrame,
  formatSseFrame,
  streamEventTransformFor,
} from "@conduit-ai/server-core/web";
import { AsyncQueue } from "./async-queue.js";
import { DataStreamWriter, type DataStreamWriterOptions } from "./data-stream-writer.js";
import type { FinishInput } from "./data-stream-response.js";

export interface WebStreamWriterOptions extends DataStreamWriterOptions {
  /** `sse` (default) or `ndjson`. */
  format?: StreamFormat;
  /** Keep-alive every N ms while no event is written (default 15 000; 0 disables). */
  keepAliveMs?: number;
  /** SSE `retry:` sent first, telling the client how long to wait before reconnecting. */
  retry?: number;
  /**
   * The request the stream answers (`ctx`): its events then go through the same transforms as a
   * stream the core encodes — `config.redaction` and any `createStreamRedactionMiddleware`.
   */
  context?: Pick<ServerContext, "state">;
}

const encoder = new TextEncoder();

/** The writer side of `createWebStreamWriter`; adds `writeEvent`, `finish` and `writeDone`. */
export class WebStreamWriter extends DataStreamWriter {
  private finished = false;

  constructor(
    private readonly queue: AsyncQueue<string>,
    private readonly format: StreamFormat,
    options: WebStreamWriterOptions,
    private readonly onClose: () => void,
  ) {
    const transform = options.context ? streamEventTransformFor(options.context) : undefined;
    const encode = format === "sse" ? encodeSseFrame : encodeNdjsonLine;
    super((event) => queue.push(encode(transform ? transform(event) : event)), options);
  }

  /**
   * A custom event, framed like every other (docs/design.md §3): SSE `event: <type>` whose `data:` is the
   * whole event `{type, timestamp, data}`, or that object as an NDJSON line.
   */
  writeEvent(type: string, data: unknown): Promise<void> {
    // A custom type is outside the `DataStreamEventType` union on purpose: clients see it by name.
    return this.write(type as DataStreamEventType, data ?? null);
  }

  async finish(input: FinishInput = {}): Promise<void> {
    if (this.closed) return;
    this.finished = true;
    const pending = this.write("finish", { reason: input.reason ?? "stop", ...(input.usage ? { usage: input.usage } : {}) });
    this.close();
    await pending;
  }

  /** Ends the stream properly: a `finish` event (reason `stop`) unless one was sent, then close. */
  async writeDone(): Promise<void> {
    if (!this.finished) await this.finish();
    this.close();
  }

  override close(): void {
    if (this.closed) return;
    super.close();
    this.queue.close();
    this.onClose();
  }

  /** @internal keep-alive without going through the event writer. */
  keepAlive(): void {
    if (this.closed || this.queue.size > 0) return;
    void this.queue.push(encodeKeepAlive(this.format));
  }
}

/**
 * A `ReadableStream<Uint8Array>` of encoded events and its writer, for web-standard
 * responses (`new Response(readable, { headers: streamHeaders("sse") })`). The stream
 * is pull-based: each write resolves when the reader took the chunk, so a slow client
 * slows the writer instead of growing memory; a cancelled reader closes the writer.
 *
 * @example
 * const { readable, writer } = createWebStreamWriter({ format: "sse" });
 * void (async () => { await writer.writeData({ step: 1 }); await writer.writeDone(); })();
 * return new Response(readable, { headers: streamHeaders("sse") });
 */
export function createWebStreamWriter(options: WebStreamWriterOptions = {}): {
  readable: ReadableStream<Uint8Array>;
  writer: WebStreamWriter;
} {
  const format = options.format ?? "sse";
  const owner: { writer?: WebStreamWriter } = {};
  const queue = new AsyncQueue<string>({ onCancel: () => owner.writer?.close() });
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const writer = new WebStreamWriter(queue, format, options, () => clearInterval(timer));
  owner.writer = writer;
  if (keepAliveMs > 0) {
    timer = setInterval(() => writer.keepAlive(), keepAliveMs);
    timer.unref();
  }
  const retry = options.retry;
  if (format === "sse" && retry !== undefined && Number.isInteger(retry) && retry >= 0) void queue.push(formatSseFrame({ retry }));
  const readable = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await queue.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await queue.return();
      },
    },
    { highWaterMark: 0 },
  );
  return { readable, writer };
}

export type { DataStreamEvent };
