import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { Environment, TelemetryCompression } from "../../settings/telemetry-settings.js";
import type { FinishedSpan } from "./finished-span.js";
import { type OtlpTarget, postWithRetry } from "./otlp-http.js";
import type { OtlpEncoding } from "./resource.js";

const gzipAsync = promisify(gzip);

export interface BatchOptions {
  scheduleDelayMs: number;
  maxExportBatchSize: number;
  maxQueueSize: number;
  /** For a whole export, retries included. */
  exportTimeoutMs: number;
  /** Per HTTP request. */
  requestTimeoutMs: number;
  /** Export after every span (still not inside `end()`), as OpenTelemetry's SimpleSpanProcessor. */
  exportImmediately: boolean;
}

/** The batch settings of the specification's `OTEL_BSP_*` and `OTEL_EXPORTER_OTLP_*TIMEOUT` variables, with its defaults. */
export function batchOptionsFrom(environment: Environment, exportImmediately = false): BatchOptions {
  const read = (name: string, fallback: number) => {
    const value = Number(environment[name]?.trim() || Number.NaN);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const maxQueueSize = read("OTEL_BSP_MAX_QUEUE_SIZE", 2048);
  return {
    scheduleDelayMs: read("OTEL_BSP_SCHEDULE_DELAY", 5000),
    maxQueueSize,
    maxExportBatchSize: Math.min(read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), maxQueueSize),
    exportTimeoutMs: read("OTEL_BSP_EXPORT_TIMEOUT", 30_000),
    requestTimeoutMs: read("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", read("OTEL_EXPORTER_OTLP_TIMEOUT", 10_000)),
    exportImmediately,
  };
}

/**
 * Holds spans already encoded (so no span object outlives its `end()`) and posts them in
 * batches: as soon as a full batch is pending, at the schedule delay, on `forceFlush()`. One
 * export at a time; a full queue drops spans and says how many once per export round.
 */
export class BatchExporter<Encoded> {
  #queue: Encoded[] = [];
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #exportScheduled = false;
  #exporting: Promise<void> | undefined;
  #stopped = false;
  readonly #warned = new Set<string>();

  constructor(
    private readonly encoding: OtlpEncoding<Encoded>,
    private readonly target: Omit<OtlpTarget, "contentType" | "contentEncoding" | "requestTimeoutMs"> & {
      compression: TelemetryCompression;
    },
    private readonly options: BatchOptions,
    private readonly warn: (message: string) => void,
  ) {}

  /** Encodes the span and queues it; called from `end()`, so it never exports in place. */
  add(span: FinishedSpan): void {
    if (this.#stopped) return;
    if (this.#queue.length >= this.options.maxQueueSize) {
      this.#dropped++;
      return;
    }
    this.#queue.push(this.encoding.encodeSpan(span));
    if (this.options.exportImmediately || this.#queue.length >= this.options.maxExportBatchSize) this.#scheduleExport();
    else this.#timer ??= setTimeout(() => this.#onTimer(), this.options.scheduleDelayMs).unref();
  }

  /** Sends everything pending; resolves when the collector has it (or the export failed). */
  forceFlush(): Promise<void> {
    return this.#export(true);
  }

  /** Flushes, stops the timer; spans ended afterwards are dropped. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#export(true);
  }

  #onTimer(): void {
    this.#timer = undefined;
    void this.#export(true);
  }

  #scheduleExport(): void {
    if (this.#exportScheduled) return;
    this.#exportScheduled = true;
    setImmediate(() => {
      this.#exportScheduled = false;
      void this.#export(this.options.exportImmediately);
    });
  }

  /** Chained on the export in flight, so at most one is. `all`: partial batches too. */
  #export(all: boolean): Promise<void> {
    const next = (this.#exporting ?? Promise.resolve()).then(() => this.#drain(all));
    this.#exporting = next;
    void next.then(() => {
      if (this.#exporting === next) this.#exporting = undefined;
    });
    return next;
  }

  async #drain(all: boolean): Promise<void> {
    if (this.#dropped > 0) {
      this.warn(
        `telemetry: dropped ${this.#dropped} spans, the export queue was full (OTEL_BSP_MAX_QUEUE_SIZE=${this.options.maxQueueSize})`,
      );
      this.#dropped = 0;
    }
    const { maxExportBatchSize } = this.options;
    while (this.#queue.length >= maxExportBatchSize || (all && this.#queue.length > 0)) {
      const batch = this.#queue.splice(0, maxExportBatchSize);
      await this.#send(batch);
    }
    if (this.#queue.length > 0 && !this.#stopped) this.#timer ??= setTimeout(() => this.#onTimer(), this.options.scheduleDelayMs).unref();
  }

  async #send(batch: Encoded[]): Promise<void> {
    const { url, headers, compression } = this.target;
    const gzipped = compression === "gzip";
    const target: OtlpTarget = {
      url,
      headers,
      contentType: this.encoding.contentType,
      ...(gzipped ? { contentEncoding: "gzip" as const } : {}),
      requestTimeoutMs: this.options.requestTimeoutMs,
    };
    let failure: string | undefined;
    try {
      const request = this.encoding.encodeRequest(batch);
      // Compressed once (in libuv's thread pool, off the event loop), then sent as often as retries need.
      const body = gzipped ? await gzipAsync(request) : request;
      failure = await postWithRetry(target, body, Date.now() + this.options.exportTimeoutMs);
    } catch (error) {
      failure = error instanceof Error ? error.name : "error";
    }
    if (failure === undefined || this.#warned.has(failure)) return;
    this.#warned.add(failure);
    this.warn(`telemetry: exporting ${batch.length} spans to ${new URL(this.target.url).host} failed: ${failure}`);
  }
}
