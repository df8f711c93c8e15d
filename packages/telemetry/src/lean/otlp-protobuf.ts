/**
 * OTLP/protobuf, written by hand rather than with a protobuf library: a span is encoded straight
 * from its fields into bytes the moment it ends (no message objects, no hex round trip for ids),
 * and an export request is the resource and scope written once in front of those bytes — repeated
 * fields simply concatenate in protobuf. Field numbers are opentelemetry-proto's trace.proto.
 */
import type { TraceAttributeValue } from "@conduit-ai/server-core";
import { type FinishedSpan, forEachAttribute, unixParts } from "./finished-span.js";
import { ProtobufWriter } from "./protobuf-writer.js";
import type { OtlpEncoding, Resource } from "./resource.js";

// Span flags: the W3C sampled bit, and that the parent's remoteness is known (and whether it is remote).
const FLAG_SAMPLED = 0x1;
const FLAG_HAS_IS_REMOTE = 0x100;
const FLAG_IS_REMOTE = 0x200;

const writer = new ProtobufWriter();

/** AnyValue's fields: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1). */
function writeAnyValue(field: number, value: TraceAttributeValue): void {
  const start = writer.begin(field);
  if (typeof value === "string") writer.string(1, value);
  else if (typeof value === "boolean") writer.uint(2, value ? 1 : 0);
  else if (typeof value === "number") {
    if (Number.isSafeInteger(value)) writer.int64(3, value);
    else writer.double(4, value);
  } else {
    const array = writer.begin(5);
    for (const item of value) writeAnyValue(1, item);
    writer.end(array);
  }
  writer.end(start);
}

/** KeyValue: key 1, value 2. */
function writeAttribute(field: number, key: string, value: TraceAttributeValue): void {
  const start = writer.begin(field);
  writer.string(1, key);
  writeAnyValue(2, value);
  writer.end(start);
}

const attributeField = (field: number) => (key: string, value: TraceAttributeValue) => writeAttribute(field, key, value);
const spanAttribute = attributeField(9);
const eventAttribute = attributeField(3);

function writeTime(field: number, time: number): void {
  const [milliseconds, nanoseconds] = unixParts(time);
  writer.fixed64Nanos(field, milliseconds, nanoseconds);
}

/** The span as ScopeSpans' field 2, ready to be concatenated with others. */
export function encodeSpanProtobuf(span: FinishedSpan): Buffer {
  writer.reset();
  const start = writer.begin(2);
  writer.bytes(1, span.traceId);
  writer.bytes(2, span.spanId);
  if (span.traceState !== undefined) writer.string(3, span.traceState);
  if (span.parentSpanId !== undefined) writer.bytes(4, span.parentSpanId);
  writer.string(5, span.name);
  writer.uint(6, span.kind);
  writeTime(7, span.startTime);
  writeTime(8, span.endTime);
  forEachAttribute(span, spanAttribute);
  for (const event of span.events ?? []) {
    const eventStart = writer.begin(11);
    writeTime(1, event.time);
    writer.string(2, event.name);
    if (event.attributes !== undefined) {
      for (const key in event.attributes) {
        const value = event.attributes[key];
        if (value !== undefined) eventAttribute(key, value);
      }
    }
    writer.end(eventStart);
  }
  if (span.statusCode !== 0) {
    const status = writer.begin(15);
    if (span.statusMessage) writer.string(2, span.statusMessage);
    writer.uint(3, span.statusCode);
    writer.end(status);
  }
  writer.fixed32(16, FLAG_SAMPLED | FLAG_HAS_IS_REMOTE | (span.parentIsRemote ? FLAG_IS_REMOTE : 0));
  writer.end(start);
  return writer.take();
}

/**
 * ExportTraceServiceRequest { resource_spans 1: ResourceSpans { resource 1, scope_spans 2:
 * ScopeSpans { scope 1, spans 2… } } }, with the resource and scope encoded once.
 */
export function protobufEncoding(resource: Resource): OtlpEncoding<Buffer> {
  writer.reset();
  const resourceStart = writer.begin(1);
  for (const [key, value] of Object.entries(resource.attributes)) writeAttribute(1, key, value);
  writer.end(resourceStart);
  const scopeStart = writer.begin(1);
  writer.string(1, resource.scopeName);
  writer.string(2, resource.scopeVersion);
  writer.end(scopeStart);
  const header = writer.take();
  // The scope entry starts at its tag, a byte before its length byte.
  const resourceEntry = header.subarray(0, scopeStart - 2);
  const scopeEntry = header.subarray(scopeStart - 2);
  return {
    contentType: "application/x-protobuf",
    encodeSpan: encodeSpanProtobuf,
    encodeRequest(spans) {
      let spansLength = 0;
      for (const span of spans) spansLength += span.length;
      const scopeSpansLength = scopeEntry.length + spansLength;
      const resourceSpansLength = resourceEntry.length + 1 + varintBytes(scopeSpansLength).length + scopeSpansLength;
      return Buffer.concat([
        Buffer.from([0x0a, ...varintBytes(resourceSpansLength)]),
        resourceEntry,
        Buffer.from([0x12, ...varintBytes(scopeSpansLength)]),
        scopeEntry,
        ...spans,
      ]);
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
