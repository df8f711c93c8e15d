/**
 * The tracing hook: what server-core, the runtime and the proxy call to describe their work as
 * spans. It is a no-op until a tracer (such as `@conduit-ai/telemetry`, which plugs OpenTelemetry
 * in) is installed with `setTracing`, so the core and its siblings carry no tracing dependency
 * and pay one property read per request when tracing is off.
 */
import type { IncomingHeaders } from "./http.js";

export type TraceAttributeValue = string | number | boolean | readonly string[] | readonly number[];

/** Span attributes; `undefined` values are left out. Never put a secret here. */
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue | undefined>>;

/** How a span relates to the outside (OpenTelemetry's span kinds). */
export type TraceSpanKind = "internal" | "server" | "client";

/** One unit of work being traced. Every method is safe to call after `end()` (then it does nothing). */
export interface TraceSpan {
  setAttributes(attributes: TraceAttributes): void;
  addEvent(name: string, attributes?: TraceAttributes): void;
  /** Marks the span failed: error status, `error.type` and an `exception` event (message only, no stack). */
  fail(error: unknown): void;
  end(): void;
  /** W3C `traceparent` (and `tracestate`) naming this span as the parent of a call made elsewhere. */
  traceHeaders(): Record<string, string>;
}

export interface TraceSpanOptions {
  kind?: TraceSpanKind;
  attributes?: TraceAttributes;
  /** The parent span (`ctx.traceSpan`, `RuntimeCallContext.traceSpan`); the active one (see `runInSpan`) when not given. */
  parent?: TraceSpan;
}

/**
 * A tracer. Conduit passes parents explicitly (`TraceSpanOptions.parent`, from `ctx.traceSpan`
 * and `RuntimeCallContext.traceSpan`), so its trees need no ambient context. The "active" span
 * (`runInSpan`, `activeSpan`) is what a tracer can offer beyond that: `@conduit-ai/telemetry`'s
 * OpenTelemetry SDK engine keeps it across awaits (AsyncLocalStorage), its default engine only for
 * the synchronous part of `work` (AsyncLocalStorage costs every promise of the process on Node 20).
 *
 * @example
 * const tracing = getTracing();
 * if (tracing.enabled) {
 *   const span = tracing.startSpan("chat gpt-4o", { kind: "client", attributes: { "gen_ai.operation.name": "chat" } });
 *   try { await tracing.runInSpan(span, () => callModel()); } catch (error) { span.fail(error); throw error; } finally { span.end(); }
 * }
 */
export interface Tracing {
  /** False for the no-op tracer: callers skip building attributes altogether. */
  readonly enabled: boolean;
  /** Prompt and answer content may be recorded (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
  readonly captureContent: boolean;
  /** A server span continuing the trace the request's `traceparent`/`tracestate` name (a new trace without them). */
  startRequestSpan(name: string, headers: IncomingHeaders, attributes?: TraceAttributes): TraceSpan;
  startSpan(name: string, options?: TraceSpanOptions): TraceSpan;
  /** The span active in this asynchronous flow, if any. */
  activeSpan(): TraceSpan | undefined;
  /** Runs `work` with `span` active (and whatever it awaits or schedules). */
  runInSpan<T>(span: TraceSpan, work: () => T): T;
  /** The same items, each pulled with `span` active: a stream's work stays in its request's trace. */
  bindIterable<T>(span: TraceSpan, iterable: AsyncIterable<T>): AsyncIterable<T>;
}

const noopSpan: TraceSpan = {
  setAttributes() {},
  addEvent() {},
  fail() {},
  end() {},
  traceHeaders: () => ({}),
};

/** The tracer in place until one is installed: records nothing, costs nothing. */
export const noopTracing: Tracing = {
  enabled: false,
  captureContent: false,
  startRequestSpan: () => noopSpan,
  startSpan: () => noopSpan,
  activeSpan: () => undefined,
  runInSpan: (_span, work) => work(),
  bindIterable: (_span, iterable) => iterable,
};

// On globalThis under a registered symbol: every copy of server-core in a process (a consumer's and
// a sibling package's) sees the one tracer, as OpenTelemetry's own API does.
const TRACING = Symbol.for("conduit-ai.tracing");
type TracingHolder = { [TRACING]?: Tracing };

/**
 * The installed tracer, or the no-op one.
 *
 * @example
 * const span = getTracing().startSpan("execute_tool search");
 */
export function getTracing(): Tracing {
  return (globalThis as TracingHolder)[TRACING] ?? noopTracing;
}

/**
 * Installs a tracer for the whole process (`undefined` puts the no-op one back).
 * `@conduit-ai/telemetry`'s `startTelemetry()` calls it; nothing else needs to.
 *
 * @example
 * setTracing(myTracer);
 */
export function setTracing(tracing: Tracing | undefined): void {
  (globalThis as TracingHolder)[TRACING] = tracing;
}

/**
 * Runs `work` in a span of its own (active while it runs), ended when it settles and failed
 * when it throws; with tracing off, just runs `work` (with no span).
 *
 * @example
 * const result = await withSpan("execute_tool search", { attributes: { "gen_ai.tool.name": "search" } }, () => tool.run(input));
 */
export function withSpan<T>(name: string, options: TraceSpanOptions, work: (span: TraceSpan | undefined) => Promise<T>): Promise<T> {
  const tracing = getTracing();
  if (!tracing.enabled) return work(undefined);
  const span = tracing.startSpan(name, options);
  return tracing
    .runInSpan(span, () => work(span))
    .then(
      (result) => {
        span.end();
        return result;
      },
      (error: unknown) => {
        span.fail(error);
        span.end();
        throw error;
      },
    );
}
