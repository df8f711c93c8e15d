/**
 * OTLP/JSON: each span becomes a plain JSON-ready object as it ends (hex ids, unix nanoseconds and
 * 64-bit integers as decimal strings, enums as numbers, as the OTLP/JSON mapping says), and a
 * batch is one `JSON.stringify` at export.
 */
import type { TraceAttributeValue, TraceAttributes } from "@conduit-ai/server-core";
import { type FinishedSpan, forEachAttribute, unixNanoString } from "./finished-span.js";
import type { OtlpEncoding, Resource } from "./resource.js";

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

export function encodeSpanJson(span: FinishedSpan): object {
  const attributes: JsonKeyValue[] = [];
  forEachAttribute(span, (key, value) => attributes.push({ key, value: anyValue(value) }));
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
    events: (span.events ?? []).map((event) => ({
      timeUnixNano: unixNanoString(event.time),
      name: event.name,
      attributes: keyValues(event.attributes),
    })),
    status: span.statusCode === 0 ? {} : { code: span.statusCode, ...(span.statusMessage ? { message: span.statusMessage } : {}) },
    flags: 0x101 | (span.parentIsRemote ? 0x200 : 0),
  };
}

export function jsonEncoding(resource: Resource): OtlpEncoding<object> {
  const header = {
    resource: { attributes: keyValues(resource.attributes) },
    scope: { name: resource.scopeName, version: resource.scopeVersion },
  };
  return {
    contentType: "application/json",
    encodeSpan: encodeSpanJson,
    encodeRequest: (spans) =>
      JSON.stringify({ resourceSpans: [{ resource: header.resource, scopeSpans: [{ scope: header.scope, spans }] }] }),
  };
}
