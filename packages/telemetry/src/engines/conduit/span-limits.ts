import type { TraceAttributeValue } from "@conduit-ai/server-core";
import type { Environment } from "../../settings/telemetry-settings.js";

/** What one span may carry, as OpenTelemetry's span limits say; what is over is dropped (and counted) at encoding. */
export interface SpanLimits {
  readonly attributeCount: number;
  /** Longer strings (and strings in arrays) are cut to this many characters. */
  readonly attributeValueLength: number;
  readonly eventCount: number;
  readonly eventAttributeCount: number;
}

/**
 * The limits of the specification's variables, with its defaults: 128 attributes and 128 events
 * a span, 128 attributes an event, values unlimited in length (`OTEL_SPAN_ATTRIBUTE_*` over the
 * general `OTEL_ATTRIBUTE_*`). A value that is no whole number ≥ 0 is ignored.
 *
 * @example
 * spanLimitsFrom({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "4096" }).attributeValueLength; // 4096
 */
export function spanLimitsFrom(environment: Environment): SpanLimits {
  const read = (names: string[], fallback: number): number => {
    for (const name of names) {
      const value = Number(environment[name]?.trim() || Number.NaN);
      if (Number.isInteger(value) && value >= 0) return value;
    }
    return fallback;
  };
  return {
    attributeCount: read(["OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"], 128),
    attributeValueLength: read(["OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"], Number.POSITIVE_INFINITY),
    eventCount: read(["OTEL_SPAN_EVENT_COUNT_LIMIT"], 128),
    eventAttributeCount: read(["OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"], 128),
  };
}

/** The events a span keeps: the last `limit`, as OpenTelemetry drops the oldest. */
export function keptEvents<T>(events: readonly T[] | undefined, limit: number): readonly T[] {
  if (events === undefined) return [];
  return events.length > limit ? events.slice(events.length - limit) : events;
}

/** Calls `visit` with each defined attribute. */
export const eachDefined =
  (attributes: Readonly<Record<string, TraceAttributeValue | undefined>> | undefined) =>
  (visit: (key: string, value: TraceAttributeValue) => void): void => {
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) visit(key, value);
    }
  };

/** The value with its strings cut to `maxLength` characters. */
export function limitedValue(value: TraceAttributeValue, maxLength: number): TraceAttributeValue {
  if (typeof value === "string") return value.length > maxLength ? value.slice(0, maxLength) : value;
  if (Array.isArray(value) && maxLength !== Number.POSITIVE_INFINITY && value.some((item) => typeof item === "string"))
    return (value as readonly string[]).map((item) => (item.length > maxLength ? item.slice(0, maxLength) : item));
  return value;
}

/**
 * Visits at most `limit` of the attributes `forEach` gives (the first ones, as OpenTelemetry keeps
 * them), their values limited in length; returns how many were left out.
 */
export function visitLimited(
  forEach: (visit: (key: string, value: TraceAttributeValue) => void) => void,
  limit: number,
  maxLength: number,
  visit: (key: string, value: TraceAttributeValue) => void,
): number {
  let kept = 0;
  let dropped = 0;
  forEach((key, value) => {
    if (kept < limit) {
      kept++;
      visit(key, limitedValue(value, maxLength));
    } else dropped++;
  });
  return dropped;
}
