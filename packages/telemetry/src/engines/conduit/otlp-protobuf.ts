/**
 * OTLP/protobuf, written by hand rather than with a protobuf library: a span is encoded straight
 * from its fields into bytes the moment it ends (no message objects, no hex round trip for ids),
 * and an export request is the resource and scope written once in front of those bytes — repeated
 * fields simply concatenate in protobuf. Field numbers are opentelemetry-proto's trace.proto.
 */
import type { TraceAttributeValue } from "@conduit-ai/server-core";
import { type FinishedSpan, unixMilliseconds } from "./finished-span.js";
import { ProtobufWriter } from "./protobuf-writer.js";
import type { OtlpEncoding, Resource } from "./resource.js";
import { type SpanLimits, eachDefined, keptEvents, limitedValue, visitLimited } from "./span-limits.js";

// Span flags: the W3C sampled bit, and that the parent's remoteness is known (and whether it is remote).
const FLAG_SAMPLED = 0x1;
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

/** AnyValue's fields: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1). */
function writeAnyValue(writer: ProtobufWriter, field: number, value: TraceAttributeValue): void {
  const start = writer.begin(field);
  if (typeof value === "string") writer.string(1, value);
  else if (typeof value === "boolean") writer.uint(2, value ? 1 : 0);
  else if (typeof value === "number") {
    if (Number.isSafeInteger(value)) writer.int64(3, value);
    else writer.double(4, value);
  } else {
    const array = writer.begin(5);
    for (const item of value) writeAnyValue(writer, 1, item);
    writer.end(array);
  }
  writer.end(start);
}

/** KeyValue: key 1, value 2. */
function writeAttribute(writer: ProtobufWriter, field: number, key: string, value: TraceAttributeValue): void {
  const start = writer.begin(field);
  writer.string(1, key);
  writeAnyValue(writer, 2, value);
  writer.end(start);
}

// Bounds the cache of encoded keys: Conduit's keys are a few dozen constants, but code may set keys it builds.
const MAX_ENCODED_KEYS = 1024;

/**
 * Attribute keys encoded once as KeyValue's key field (tag, length, UTF-8) — keys are most of a
 * span's bytes and the same on every span — and the attribute profile: a key it leaves out
 * encodes to `null`, so keeping or skipping an attribute is one map lookup.
 */
export class EncodedKeys {
  readonly #encoded = new Map<string, Uint8Array | null>();

  /** `kept`: the profile's keys (`keptAttributes`); `undefined` keeps every key. */
  constructor(private readonly kept: ReadonlySet<string> | undefined) {}

  get(key: string): Uint8Array | null {
    let encoded = this.#encoded.get(key);
    if (encoded !== undefined) return encoded;
    if (this.kept === undefined || this.kept.has(key)) {
      const writer = new ProtobufWriter(64);
      writer.string(1, key);
      encoded = writer.take();
    } else encoded = null;
    if (this.#encoded.size < MAX_ENCODED_KEYS) this.#encoded.set(key, encoded);
    return encoded;
  }
}

type AttributeValues = Readonly<Record<string, TraceAttributeValue | undefined>>;

/**
 * Writes `from`'s defined attributes as field 9 (those `overriding` sets again are skipped: it is
 * written after), while `written` stays under the limit; returns `written` plus those it saw.
 */
function writeAttributes(
  writer: ProtobufWriter,
  from: AttributeValues,
  overriding: AttributeValues | undefined,
  keys: EncodedKeys,
  limits: SpanLimits,
  written: number,
): number {
  for (const key in from) {
    const value = from[key];
    if (value === undefined || (overriding !== undefined && overriding[key] !== undefined)) continue;
    const encodedKey = keys.get(key);
    if (encodedKey === null) continue;
    if (written++ >= limits.attributeCount) continue;
    const start = writer.begin(9);
    writer.raw(encodedKey);
    writeAnyValue(writer, 2, typeof value === "number" ? value : limitedValue(value, limits.attributeValueLength));
    writer.end(start);
  }
  return written;
}

function writeTime(writer: ProtobufWriter, field: number, time: number): void {
  // unixParts inline: no pair allocated for the two times of every span.
  let milliseconds = Math.floor(time);
  let nanoseconds = Math.round((time - milliseconds) * 1e6);
  if (nanoseconds === 1e6) {
    milliseconds += 1;
    nanoseconds = 0;
  }
  writer.fixed64Nanos(field, unixMilliseconds(milliseconds), nanoseconds);
}

/**
 * Appends the span as ScopeSpans' field 2, ready to follow others, within `limits` (what is over
 * them counted as dropped), with the attributes `keys` keeps.
 */
export function writeSpan(writer: ProtobufWriter, span: FinishedSpan, limits: SpanLimits, keys: EncodedKeys): void {
  const start = writer.begin(2);
  writer.bytes(1, span.traceId);
  writer.bytes(2, span.spanId);
  if (span.traceState !== undefined) writer.string(3, span.traceState);
  if (span.parentSpanId !== undefined) writer.bytes(4, span.parentSpanId);
  writer.string(5, span.name);
  writer.uint(6, span.kind);
  writeTime(writer, 7, span.startTime);
  writeTime(writer, 8, span.endTime);
  const { attributeCount, attributeValueLength, eventCount, eventAttributeCount } = limits;
  const { attributes, laterAttributes } = span;
  // Two plain loops rather than forEachAttribute's callback: this runs for every span of every request.
  let seen = attributes === undefined ? 0 : writeAttributes(writer, attributes, laterAttributes, keys, limits, 0);
  if (laterAttributes !== undefined) seen = writeAttributes(writer, laterAttributes, undefined, keys, limits, seen);
  if (seen > attributeCount) writer.uint(10, seen - attributeCount);
  const events = keptEvents(span.events, eventCount);
  for (const event of events) {
    const eventStart = writer.begin(11);
    writeTime(writer, 1, event.time);
    writer.string(2, event.name);
    const dropped = visitLimited(eachDefined(event.attributes), eventAttributeCount, attributeValueLength, (key, value) =>
      writeAttribute(writer, 3, key, value),
    );
    if (dropped > 0) writer.uint(4, dropped);
    writer.end(eventStart);
  }
  const droppedEvents = (span.events?.length ?? 0) - events.length;
  if (droppedEvents > 0) writer.uint(12, droppedEvents);
  if (span.statusCode !== 0) {
    const status = writer.begin(15);
    if (span.statusMessage) writer.string(2, span.statusMessage);
    writer.uint(3, span.statusCode);
    writer.end(status);
  }
  writer.fixed32(16, FLAG_SAMPLED | FLAG_HAS_IS_REMOTE | (span.parentIsRemote ? FLAG_IS_REMOTE : 0));
  writer.end(start);
}

/**
 * ExportTraceServiceRequest { resource_spans 1: ResourceSpans { resource 1, scope_spans 2:
 * ScopeSpans { scope 1, spans 2… } } }, with the resource and scope encoded once; a span's
 * attributes only the `kept` keys when given (the attribute profile's). Ended spans are
 * appended to one buffer, back to back, and a span's encoding is just its length there: no
 * object per span waits in the queue, and a batch is the oldest bytes of that buffer.
 */
export function protobufEncoding(resource: Resource, limits: SpanLimits, kept?: ReadonlySet<string>): OtlpEncoding<number> {
  const keys = new EncodedKeys(kept);
  const header = new ProtobufWriter();
  const resourceStart = header.begin(1);
  for (const [key, value] of Object.entries(resource.attributes)) writeAttribute(header, 1, key, value);
  header.end(resourceStart);
  const scopeStart = header.begin(1);
  header.string(1, resource.scopeName);
  header.string(2, resource.scopeVersion);
  header.end(scopeStart);
  const written = header.take();
  // The scope entry starts at its tag, a byte before its length byte.
  const resourceEntry = written.subarray(0, scopeStart - 2);
  const scopeEntry = written.subarray(scopeStart - 2);
  const pending = new ProtobufWriter();
  return {
    contentType: "application/x-protobuf",
    encodeSpan(span) {
      const before = pending.position;
      writeSpan(pending, span, limits, keys);
      return pending.position - before;
    },
    encodeRequest(lengths) {
      let spansLength = 0;
      for (const length of lengths) spansLength += length;
      const scopeSpansLength = scopeEntry.length + spansLength;
      const resourceSpansLength = resourceEntry.length + 1 + varintBytes(scopeSpansLength).length + scopeSpansLength;
      const request = Buffer.concat([
        Buffer.from([0x0a, ...varintBytes(resourceSpansLength)]),
        resourceEntry,
        Buffer.from([0x12, ...varintBytes(scopeSpansLength)]),
        scopeEntry,
        pending.buffer.subarray(0, spansLength),
      ]);
      pending.consume(spansLength);
      return request;
    },
  };
}

function varintBytes(value: number): number[] {
  const bytes: number[] = [];
  while (value > 127) {
    bytes.push((value % 128) | 128);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return bytes;
}
