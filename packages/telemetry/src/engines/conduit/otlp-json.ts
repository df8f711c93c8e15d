/**
 * OTLP/JSON: each span becomes a plain JSON-ready object as it ends (hex ids, unix nanoseconds and
 * 64-bit integers as decimal strings, enums as numbers, as the OTLP/JSON mapping says), and a
 * batch is one `JSON.stringify` at export.
 */
import type { TraceAttributeValue, TraceAttributes } from "@conduit-ai/server-core";
import { type FinishedSpan, forEachAttribute, unixNanoString } from "./finished-span.js";
import type { OtlpEncoding, Resource } from "./resource.js";
import { type SpanLimits, eachDefined, keptEvents, visitLimited } from "./span-limits.js";

type JsonAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: JsonAnyValue[] } };
type JsonKeyValue = { key: string; value: JsonAnyValue };

function anyValue(value: TraceAttributeValue): JsonAnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { arrayValue: { values: value.map(anyValue) } };
}

function keyValues(attributes: TraceAttributes | undefined): JsonKeyValue[] {
  const result: JsonKeyValue[] = [];
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) result.push({ key, value: anyValue(value) });
  }
  return result;
}

/** Pushes at most `limit` attributes onto `into`; returns how many were left out. */
function limitedKeyValues(
  forEach: (visit: (key: string, value: TraceAttributeValue) => void) => void,
  limit: number,
  maxLength: number,
  into: JsonKeyValue[],
): number {
  return visitLimited(forEach, limit, maxLength, (key, value) => into.push({ key, value: anyValue(value) }));
}

/** The span as OTLP/JSON, its attributes only the `kept` keys when given (the attribute profile's). */
export function encodeSpanJson(span: FinishedSpan, limits: SpanLimits, kept?: ReadonlySet<string>): object {
  const attributes: JsonKeyValue[] = [];
  const droppedAttributes = limitedKeyValues(
    (visit) => forEachAttribute(span, visit, kept),
    limits.attributeCount,
    limits.attributeValueLength,
    attributes,
  );
  const events = keptEvents(span.events, limits.eventCount);
  const droppedEvents = (span.events?.length ?? 0) - events.length;
  return {
    traceId: span.traceId.toString("hex"),
    spanId: span.spanId.toString("hex"),
    ...(span.traceState !== undefined ? { traceState: span.traceState } : {}),
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId.toString("hex") } : {}),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNanoString(span.startTime),
    endTimeUnixNano: unixNanoString(span.endTime),
    attributes,
    ...(droppedAttributes > 0 ? { droppedAttributesCount: droppedAttributes } : {}),
    events: events.map((event) => {
      const eventAttributes: JsonKeyValue[] = [];
      const dropped = limitedKeyValues(
        eachDefined(event.attributes),
        limits.eventAttributeCount,
        limits.attributeValueLength,
        eventAttributes,
      );
      return {
        timeUnixNano: unixNanoString(event.time),
        name: event.name,
        attributes: eventAttributes,
        ...(dropped > 0 ? { droppedAttributesCount: dropped } : {}),
      };
    }),
    ...(droppedEvents > 0 ? { droppedEventsCount: droppedEvents } : {}),
    status: span.statusCode === 0 ? {} : { code: span.statusCode, ...(span.statusMessage ? { message: span.statusMessage } : {}) },
    flags: 0x101 | (span.parentIsRemote ? 0x200 : 0),
  };
}

export function jsonEncoding(resource: Resource, limits: SpanLimits, kept?: ReadonlySet<string>): OtlpEncoding<object> {
  const header = {
    resource: { attributes: keyValues(resource.attributes) },
    scope: { name: resource.scopeName, version: resource.scopeVersion },
  };
  return {
    contentType: "application/json",
    encodeSpan: (span) => encodeSpanJson(span, limits, kept),
    encodeRequest: (spans) =>
      JSON.stringify({ resourceSpans: [{ resource: header.resource, scopeSpans: [{ scope: header.scope, spans }] }] }),
  };
}
