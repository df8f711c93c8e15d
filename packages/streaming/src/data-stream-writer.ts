import type { DataStreamEvent, DataStreamEventType } from "@conduit-ai/server-core";

export interface DataStreamWriterOptions {
  /**
   * Stamp every event with `Date.now()` (default true). When false the writer leaves the
   * field out; note the core's HTTP encoder stamps events it serves (docs/design.md §3 frames always carry one).
   */
  timestamps?: boolean;
}

export interface ToolCallInput {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolResultInput {
  id: string;
  name: string;
  result: unknown;
}

export interface StreamErrorInput {
  message: string;
  code?: string;
}

/** Where a writer's events go; resolves when the consumer took the event (backpressure). */
export type DataStreamSink = (event: DataStreamEvent) => Promise<void>;

/**
 * Writes `DataStreamEvent`s (docs/design.md §3) to a sink. Every write returns a promise that
 * resolves once the consumer pulled the event — await it to honor backpressure. After
 * `close()` (or once the consumer went away) writes are silent no-ops: a handler is
 * never thrown at because its client disconnected.
 *
 * @example
 * await writer.writeTextStart("t1");
 * await writer.writeTextDelta("t1", "Hello");
 * await writer.writeTextEnd("t1");
 */
export class DataStreamWriter {
  protected closed = false;
  private readonly timestamps: boolean;

  constructor(
    private readonly sink: DataStreamSink,
    options: DataStreamWriterOptions = {},
  ) {
    this.timestamps = options.timestamps ?? true;
  }

  isClosed(): boolean {
    return this.closed;
  }

  writeTextStart(id: string): Promise<void> {
    return this.write("text-start", {}, id);
  }

  writeTextDelta(id: string, delta: string): Promise<void> {
    return this.write("text-delta", { delta }, id);
  }

  writeTextEnd(id: string): Promise<void> {
    return this.write("text-end", {}, id);
  }

  writeToolCall(call: ToolCallInput): Promise<void> {
    return this.write("tool-call", { id: call.id, name: call.name, arguments: call.arguments }, call.id);
  }

  writeToolResult(result: ToolResultInput): Promise<void> {
    return this.write("tool-result", { id: result.id, name: result.name, result: result.result }, result.id);
  }

  writeData(data: unknown): Promise<void> {
    return this.write("data", data);
  }

  /** An `error` event; the stream should be closed after it (docs/design.md §3: last event is `finish` or `error`). */
  writeError(error: StreamErrorInput): Promise<void> {
    return this.write("error", { message: error.message, ...(error.code === undefined ? {} : { code: error.code }) });
  }

  /** Ends the stream; events already written are still delivered. */
  close(): void {
    this.closed = true;
  }

  /** Builds and sends one event; a no-op after close. Never rejects. */
  protected write(type: DataStreamEventType, data: unknown, id?: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const event = {
      type,
      ...(id === undefined ? {} : { id }),
      ...(this.timestamps ? { timestamp: Date.now() } : {}),
      data,
    } as DataStreamEvent;
    return this.sink(event).catch(() => undefined);
  }
}
