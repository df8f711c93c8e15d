import type { IncomingHeaders, TraceAttributes, TraceSpan, TraceSpanKind, TraceSpanOptions, Tracing } from "@conduit-ai/server-core";
import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  ROOT_CONTEXT,
  type Tracer,
  context as contextApi,
  createContextKey,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

const KINDS: Record<TraceSpanKind, SpanKind> = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };
/** Where the active context keeps our wrapper of its span, so `activeSpan()` returns the same object. */
const WRAPPER = createContextKey("conduit-ai.trace-span");
const propagator = new W3CTraceContextPropagator();

/** Attributes without their `undefined` values (OpenTelemetry warns about each one), and only the `kept` keys if given. */
function defined(attributes: TraceAttributes | undefined, kept?: ReadonlySet<string>): Attributes | undefined {
  if (attributes === undefined) return undefined;
  const result: Attributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined && (kept === undefined || kept.has(key))) result[key] = value as Attributes[string];
  }
  return result;
}

/** The error's name, never its stack (paths, and sometimes what a failing call was given). */
function errorType(error: unknown): string {
  if (typeof error === "string") return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : "Error";
}

class OpenTelemetrySpan implements TraceSpan {
  #ended = false;
  readonly context: Context;

  constructor(
    readonly span: Span,
    parent: Context,
    private readonly kept: ReadonlySet<string> | undefined,
  ) {
    this.context = trace.setSpan(parent, span).setValue(WRAPPER, this);
  }

  setAttributes(attributes: TraceAttributes): void {
    if (!this.#ended) this.span.setAttributes(defined(attributes, this.kept) as Attributes);
  }

  addEvent(name: string, attributes?: TraceAttributes): void {
    if (!this.#ended) this.span.addEvent(name, defined(attributes));
  }

  fail(error: unknown): void {
    if (this.#ended) return;
    const type = errorType(error);
    this.span.setAttribute("error.type", type);
    if (typeof error === "string") {
      this.span.setStatus({ code: SpanStatusCode.ERROR });
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    this.span.addEvent("exception", { "exception.type": type, "exception.message": message });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }

  traceHeaders(): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagator.inject(this.context, carrier, defaultTextMapSetter);
    return carrier;
  }
}

/** What a span is started from: an explicit parent, or the active context. */
function parentContext(parent: TraceSpan | undefined): Context {
  return parent instanceof OpenTelemetrySpan ? parent.context : contextApi.active();
}

/**
 * Conduit's tracing hook on an OpenTelemetry tracer: W3C trace context extracted from requests
 * and injected into outgoing calls, the active span carried by OpenTelemetry's context (the
 * AsyncLocalStorage manager `NodeTracerProvider.register()` installs).
 *
 * @example
 * setTracing(new OpenTelemetryTracing(provider.getTracer("@conduit-ai/telemetry"), false));
 */
export class OpenTelemetryTracing implements Tracing {
  readonly enabled = true;

  constructor(
    private readonly tracer: Tracer,
    readonly captureContent: boolean,
    /** The attribute profile's keys (`keptAttributes`); `undefined` keeps them all. */
    private readonly kept?: ReadonlySet<string>,
  ) {}

  startRequestSpan(name: string, headers: IncomingHeaders, attributes?: TraceAttributes): TraceSpan {
    // From the root: a request's trace is the one its headers name (or a new one), never a leftover of the socket's context.
    const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes, this.kept) }, parent);
    return new OpenTelemetrySpan(span, parent, this.kept);
  }

  startSpan(name: string, options: TraceSpanOptions = {}): TraceSpan {
    const parent = parentContext(options.parent);
    const kind = KINDS[options.kind ?? "internal"];
    const span = this.tracer.startSpan(name, { kind, attributes: defined(options.attributes, this.kept) }, parent);
    return new OpenTelemetrySpan(span, parent, this.kept);
  }

  activeSpan(): TraceSpan | undefined {
    return contextApi.active().getValue(WRAPPER) as TraceSpan | undefined;
  }

  runInSpan<T>(span: TraceSpan, work: () => T): T {
    return span instanceof OpenTelemetrySpan ? contextApi.with(span.context, work) : work();
  }

  bindIterable<T>(span: TraceSpan, iterable: AsyncIterable<T>): AsyncIterable<T> {
    if (!(span instanceof OpenTelemetrySpan)) return iterable;
    const active = span.context;
    return {
      [Symbol.asyncIterator]() {
        const iterator = iterable[Symbol.asyncIterator]();
        return {
          next: (...args: [] | [unknown]) => contextApi.with(active, () => iterator.next(...args)),
          return: (value?: unknown) =>
            contextApi.with(active, () =>
              iterator.return ? iterator.return(value as T) : Promise.resolve({ done: true as const, value: value as T }),
            ),
          throw: (error?: unknown) => contextApi.with(active, () => (iterator.throw ? iterator.throw(error) : Promise.reject(error))),
        };
      },
    };
  }
}
