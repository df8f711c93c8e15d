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

// Lowercase hex digits only, as W3C trace context requires; -1 for any other character.
const HEX = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX["0123456789abcdef".charCodeAt(digit)] = digit;

/** The byte two hex digits at `at` spell, or -1. */
function hexByte(text: string, at: number): number {
  const high = HEX[text.charCodeAt(at)] ?? -1;
  const low = HEX[text.charCodeAt(at + 1)] ?? -1;
  return high < 0 || low < 0 ? -1 : (high << 4) | low;
}

/** `bytes` bytes of hex at `start`; `undefined` when not hex or all zero (an invalid id). */
function hexId(text: string, start: number, bytes: number): Buffer | undefined {
  const id = Buffer.allocUnsafe(bytes);
  let any = 0;
  for (let index = 0; index < bytes; index++) {
    const byte = hexByte(text, start + 2 * index);
    if (byte < 0) return undefined;
    id[index] = byte;
    any |= byte;
  }
  return any === 0 ? undefined : id;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The remote parent a request's `traceparent`/`tracestate` name, or `undefined` (then the request
 * starts a new trace): the rules of OpenTelemetry's W3CTraceContextPropagator — version `ff` and
 * all-zero ids are invalid, version 00 allows nothing after the flags, a later version may add
 * `-…` fields. Parsed by hand: a regular expression and `Buffer.from(hex)` cost a microsecond a request.
 */
export function parseTraceparent(
  traceparent: string | string[] | undefined,
  tracestate: string | string[] | undefined,
): SpanContext | undefined {
  const text = first(traceparent)?.trim();
  if (text === undefined || text.length < 55 || text[2] !== "-" || text[35] !== "-" || text[52] !== "-") return undefined;
  const version = hexByte(text, 0);
  const flags = hexByte(text, 53);
  if (version < 0 || flags < 0 || version === 0xff) return undefined;
  if (text.length > 55 && (version === 0 || text[55] !== "-")) return undefined;
  const traceId = hexId(text, 3, TRACE_ID_BYTES);
  const spanId = traceId && hexId(text, 36, SPAN_ID_BYTES);
  if (traceId === undefined || spanId === undefined) return undefined;
  const state = Array.isArray(tracestate) ? tracestate.join(",") : tracestate;
  return { traceId, spanId, sampled: (flags & 1) === 1, traceState: state === undefined || state.trim() === "" ? undefined : state };
}

/** `traceparent` (and `tracestate`) naming `context` as the parent of a call made elsewhere. */
export function traceHeadersOf(context: SpanContext): Record<string, string> {
  const traceparent = `00-${context.traceId.toString("hex")}-${context.spanId.toString("hex")}-${context.sampled ? "01" : "00"}`;
  return context.traceState === undefined ? { traceparent } : { traceparent, tracestate: context.traceState };
}
