/**
 * Trace and span ids as raw bytes, and the W3C `traceparent` that carries them. Ids stay bytes
 * from birth to the protobuf export: hex is made only when a `traceparent` is formatted (or for
 * OTLP/JSON), which is what the OpenTelemetry SDK spends time on at every span.
 */
import { randomFillSync } from "node:crypto";

export const TRACE_ID_BYTES = 16;
export const SPAN_ID_BYTES = 8;

// One `randomFillSync` per 256 spans instead of one per id. A used-up pool is replaced, never
// refilled in place: the ids handed out are views into it and must not change.
const POOL_BYTES = 4096;
let pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
let poolOffset = 0;

/** `length` random bytes, never all zero (the W3C invalid id). */
export function randomId(length: number): Buffer {
  if (poolOffset + length > POOL_BYTES) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const id = pool.subarray(poolOffset, poolOffset + length);
  poolOffset += length;
  if (isZero(id)) id[length - 1] = 1;
  return id;
}

function isZero(id: Uint8Array): boolean {
  for (let index = 0; index < id.length; index++) if (id[index] !== 0) return false;
  return true;
}

/** What a span is continued from: a remote caller's context or a local parent span. */
export interface SpanContext {
  readonly traceId: Buffer;
  readonly spanId: Buffer;
  readonly sampled: boolean;
  /** The caller's `tracestate`, forwarded as is. */
  readonly traceState: string | undefined;
}

// Version, trace id, parent id, flags; anything after the flags only for a future version.
const TRACEPARENT = /^\s?([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?\s?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The remote parent a request's `traceparent`/`tracestate` name, or `undefined` (then the request
 * starts a new trace): the rules of OpenTelemetry's W3CTraceContextPropagator — version `ff` and
 * all-zero ids are invalid, version 00 allows nothing after the flags.
 */
export function parseTraceparent(
  traceparent: string | string[] | undefined,
  tracestate: string | string[] | undefined,
): SpanContext | undefined {
  const value = first(traceparent);
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state = Array.isArray(tracestate) ? tracestate.join(",") : tracestate;
  return {
    traceId: Buffer.from(traceId, "hex"),
    spanId: Buffer.from(spanId, "hex"),
    sampled: (Number.parseInt(flags, 16) & 1) === 1,
    traceState: state === undefined || state.trim() === "" ? undefined : state,
  };
}

/** `traceparent` (and `tracestate`) naming `context` as the parent of a call made elsewhere. */
export function traceHeadersOf(context: SpanContext): Record<string, string> {
  const traceparent = `00-${context.traceId.toString("hex")}-${context.spanId.toString("hex")}-${context.sampled ? "01" : "00"}`;
  return context.traceState === undefined ? { traceparent } : { traceparent, tracestate: context.traceState };
}
