import type { TraceAttributes } from "@conduit-ai/server-core";

/** OTLP's span kinds and status codes, as numbers on the wire. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS_UNSET = 0;
export const STATUS_ERROR = 2;

export interface SpanEvent {
  readonly name: string;
  readonly time: number;
  readonly attributes: TraceAttributes | undefined;
}

/** What an encoder reads from a span at `end()`; the span drops its references right after. */
export interface FinishedSpan {
  readonly traceId: Buffer;
  readonly spanId: Buffer;
  readonly parentSpanId: Buffer | undefined;
  readonly parentIsRemote: boolean;
  readonly traceState: string | undefined;
  readonly name: string;
  readonly kind: number;
  /** Clock readings (`now()`). */
  readonly startTime: number;
  readonly endTime: number;
  /** The start attributes, then those set later (which win; `undefined` values are skipped). */
  readonly attributes: TraceAttributes | undefined;
  readonly laterAttributes: Record<string, TraceAttributes[string]> | undefined;
  readonly events: readonly SpanEvent[] | undefined;
  readonly statusCode: number;
  readonly statusMessage: string | undefined;
}

/**
 * The start attributes not overridden later, then the later ones: every attribute once, without
 * merging them into a new object; only the `kept` keys (an attribute profile's) when given.
 */
export function forEachAttribute(
  span: FinishedSpan,
  visit: (key: string, value: NonNullable<TraceAttributes[string]>) => void,
  kept?: ReadonlySet<string>,
): void {
  const { attributes, laterAttributes } = span;
  if (attributes !== undefined) {
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined || (laterAttributes !== undefined && laterAttributes[key] !== undefined)) continue;
      if (kept === undefined || kept.has(key)) visit(key, value);
    }
  }
  if (laterAttributes !== undefined) {
    for (const key in laterAttributes) {
      const value = laterAttributes[key];
      if (value !== undefined && (kept === undefined || kept.has(key))) visit(key, value);
    }
  }
}

// Unix nanoseconds overflow a double's 53 bits, so a reading is kept as milliseconds since the
// whole millisecond of `performance.timeOrigin`, and split into whole ms and nanoseconds to write.
const ORIGIN_MS = Math.floor(performance.timeOrigin);
const ORIGIN_FRACTION = performance.timeOrigin - ORIGIN_MS;

/** A clock reading: cheap, monotonic, turned into unix nanoseconds only when encoded. */
export const now = (): number => performance.now() + ORIGIN_FRACTION;

/** Whole unix milliseconds of a reading's whole milliseconds (`Math.floor(time)`). */
export const unixMilliseconds = (wholeMilliseconds: number): number => ORIGIN_MS + wholeMilliseconds;

/** The reading as whole unix milliseconds and the nanoseconds past them (0…999999). */
export function unixParts(time: number): [milliseconds: number, nanoseconds: number] {
  let milliseconds = Math.floor(time);
  let nanoseconds = Math.round((time - milliseconds) * 1e6);
  if (nanoseconds === 1e6) {
    milliseconds += 1;
    nanoseconds = 0;
  }
  return [ORIGIN_MS + milliseconds, nanoseconds];
}

/** Unix nanoseconds as a decimal string (OTLP/JSON's fixed64). */
export function unixNanoString(time: number): string {
  const [milliseconds, nanoseconds] = unixParts(time);
  return `${milliseconds}${String(nanoseconds).padStart(6, "0")}`;
}
