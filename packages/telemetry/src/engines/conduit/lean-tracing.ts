import type { IncomingHeaders, TraceAttributes, TraceSpan, TraceSpanOptions, Tracing } from "@conduit-ai/server-core";
import { type FinishedSpan, SPAN_KIND, STATUS_ERROR, STATUS_UNSET, type SpanEvent, now } from "./finished-span.js";
import type { Sampler } from "./sampler.js";
import { SPAN_ID_BYTES, type SpanContext, TRACE_ID_BYTES, parseTraceparent, randomId, traceHeadersOf } from "./trace-context.js";

/** Where ended spans go (the batch exporter). */
export interface SpanSink {
  add(span: FinishedSpan): void;
}

/** The error's name, never its stack (as OpenTelemetryTracing records it). */
function errorType(error: unknown): string {
  if (typeof error === "string") return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : "Error";
}

/** A span that is not sampled: records nothing, yet carries its context to children and outgoing calls. */
class UnsampledSpan implements TraceSpan, SpanContext {
  readonly sampled = false;
  constructor(
    readonly traceId: Buffer,
    readonly spanId: Buffer,
    readonly traceState: string | undefined,
  ) {}
  setAttributes(): void {}
  addEvent(): void {}
  fail(): void {}
  end(): void {}
  traceHeaders(): Record<string, string> {
    return traceHeadersOf(this);
  }
}

/** A recorded span: collects until `end()`, when the sink encodes it and the span lets go of everything. */
class LeanSpan implements TraceSpan, SpanContext, FinishedSpan {
  readonly sampled = true;
  readonly startTime = now();
  endTime = 0;
  laterAttributes: Record<string, TraceAttributes[string]> | undefined = undefined;
  events: SpanEvent[] | undefined = undefined;
  statusCode = STATUS_UNSET;
  statusMessage: string | undefined = undefined;
  #sink: SpanSink | undefined;

  constructor(
    sink: SpanSink,
    readonly name: string,
    readonly kind: number,
    readonly traceId: Buffer,
    readonly spanId: Buffer,
    readonly parentSpanId: Buffer | undefined,
    readonly parentIsRemote: boolean,
    readonly traceState: string | undefined,
    public attributes: TraceAttributes | undefined,
  ) {
    this.#sink = sink;
  }

  setAttributes(attributes: TraceAttributes): void {
    if (this.#sink === undefined) return;
    this.laterAttributes ??= {};
    for (const key in attributes) if (attributes[key] !== undefined) this.laterAttributes[key] = attributes[key];
  }

  addEvent(name: string, attributes?: TraceAttributes): void {
    if (this.#sink === undefined) return;
    this.events ??= [];
    this.events.push({ name, time: now(), attributes });
  }

  fail(error: unknown): void {
    if (this.#sink === undefined) return;
    const type = errorType(error);
    this.setAttributes({ "error.type": type });
    this.statusCode = STATUS_ERROR;
    if (typeof error === "string") return;
    const message = error instanceof Error ? error.message : String(error);
    this.statusMessage = message;
    this.addEvent("exception", { "exception.type": type, "exception.message": message });
  }

  end(): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    this.#sink = undefined;
    this.endTime = now();
    sink.add(this);
    // Encoded: only the ids stay, for `traceHeaders()` and children started later.
    this.attributes = undefined;
    this.laterAttributes = undefined;
    this.events = undefined;
  }

  traceHeaders(): Record<string, string> {
    return traceHeadersOf(this);
  }
}

type AnySpan = LeanSpan | UnsampledSpan;
const isLeanSpan = (span: TraceSpan | undefined): span is AnySpan => span instanceof LeanSpan || span instanceof UnsampledSpan;

/**
 * Conduit's own tracing engine (the default): spans encoded to OTLP the moment they end, ids kept
 * as bytes, W3C trace context, the OpenTelemetry samplers — and no OpenTelemetry SDK.
 *
 * The active span is a plain synchronous slot, not AsyncLocalStorage: `runInSpan` sets it while
 * `work` runs synchronously and puts the previous one back when `work` returns, so it does NOT
 * survive an `await`. Conduit passes parents explicitly (`startSpan(name, { parent })`); code that
 * relies on the active span across awaits, or other OpenTelemetry instrumentation that should
 * join the trace, needs the `opentelemetry` engine.
 *
 * @example
 * setTracing(new LeanTracing(exporter, createSampler("parentbased_always_on", 1), false));
 */
export class LeanTracing implements Tracing {
  readonly enabled = true;
  #active: TraceSpan | undefined;

  constructor(
    private readonly sink: SpanSink,
    private readonly sampler: Sampler,
    readonly captureContent: boolean,
  ) {}

  startRequestSpan(name: string, headers: IncomingHeaders, attributes?: TraceAttributes): TraceSpan {
    const remote = parseTraceparent(headers.traceparent, headers.tracestate);
    return this.#start(name, SPAN_KIND.server, attributes, remote, true);
  }

  startSpan(name: string, options: TraceSpanOptions = {}): TraceSpan {
    const parent = isLeanSpan(options.parent) ? options.parent : this.#active;
    return this.#start(name, SPAN_KIND[options.kind ?? "internal"], options.attributes, isLeanSpan(parent) ? parent : undefined, false);
  }

  #start(name: string, kind: number, attributes: TraceAttributes | undefined, parent: SpanContext | undefined, remote: boolean): TraceSpan {
    const traceId = parent?.traceId ?? randomId(TRACE_ID_BYTES);
    const spanId = randomId(SPAN_ID_BYTES);
    if (!this.sampler(parent, traceId)) return new UnsampledSpan(traceId, spanId, parent?.traceState);
    return new LeanSpan(
      this.sink,
      name,
      kind,
      traceId,
      spanId,
      parent?.spanId,
      remote && parent !== undefined,
      parent?.traceState,
      attributes,
    );
  }

  activeSpan(): TraceSpan | undefined {
    return this.#active;
  }

  runInSpan<T>(span: TraceSpan, work: () => T): T {
    const previous = this.#active;
    this.#active = span;
    try {
      return work();
    } finally {
      this.#active = previous;
    }
  }

  bindIterable<T>(span: TraceSpan, iterable: AsyncIterable<T>): AsyncIterable<T> {
    const run = <R>(work: () => R) => this.runInSpan(span, work);
    return {
      [Symbol.asyncIterator]() {
        const iterator = iterable[Symbol.asyncIterator]();
        return {
          next: (...args: [] | [unknown]) => run(() => iterator.next(...args)),
          return: (value?: unknown) =>
            run(() => (iterator.return ? iterator.return(value as T) : Promise.resolve({ done: true as const, value: value as T }))),
          throw: (error?: unknown) => run(() => (iterator.throw ? iterator.throw(error) : Promise.reject(error))),
        };
      },
    };
  }
}
