import { performance } from "../pipeline/clock.js";
import type { ResponseHeaders } from "../../contracts/http.js";
import type { SerializedServerError, ServerAdapterError } from "../../errors/server-adapter-error.js";
import { isoTimestamp } from "../pipeline/clock.js";

/** `{data, metadata}` of every successful JSON answer. */
export interface SuccessEnvelope<T = unknown> {
  data: T;
  metadata: { requestId: string; timestamp: string; duration: number };
}

/** The spec's `ErrorResponse` as sent on the wire. */
export interface ErrorResponse {
  error: SerializedServerError & { stack?: string };
  metadata: { timestamp: string; requestId: string };
  httpStatus?: number;
}

export function successEnvelope<T>(data: T, requestId: string, startTime: number): SuccessEnvelope<T> {
  return {
    data,
    metadata: { requestId, timestamp: isoTimestamp(), duration: Math.round((performance.now() - startTime) * 100) / 100 },
  };
}

/** Request ids that need no JSON escaping (the core's own rule for incoming and generated ids). */
const PLAIN_ID = /^[A-Za-z0-9._:-]*$/;

/**
 * `ctx.state` key of fields a handler adds to the success envelope's `metadata` (after
 * `requestId`, `timestamp` and `duration`, which it cannot replace): `/agent/execute` says
 * `memory: "unavailable"` there when the conversation store was down.
 */
export const ENVELOPE_METADATA_STATE = "conduit.envelopeMetadata";

/**
 * `JSON.stringify(successEnvelope(data, requestId, startTime))`, written out around the
 * serialized data: the metadata's fixed shape needs no generic serializer on every answer.
 * `extraMetadata` adds fields after the fixed ones.
 */
export function successEnvelopeJson(data: unknown, requestId: string, startTime: number, extraMetadata?: Record<string, unknown>): string {
  const json = JSON.stringify(data);
  const id = PLAIN_ID.test(requestId) ? `"${requestId}"` : JSON.stringify(requestId);
  const duration = Math.round((performance.now() - startTime) * 100) / 100;
  const extra = extraMetadataJson(extraMetadata);
  return `{"data":${json === undefined ? "null" : json},"metadata":{"requestId":${id},"timestamp":"${isoTimestamp()}","duration":${duration}${extra}}}`;
}

const FIXED_METADATA = new Set(["requestId", "timestamp", "duration"]);

/** `,"key":value,...` of the extra fields, without the fixed ones; "" for none. */
function extraMetadataJson(extraMetadata: Record<string, unknown> | undefined): string {
  if (extraMetadata === undefined) return "";
  const fields = Object.entries(extraMetadata).filter(([key, value]) => !FIXED_METADATA.has(key) && value !== undefined);
  if (fields.length === 0) return "";
  const json = JSON.stringify(Object.fromEntries(fields));
  return `,${json.slice(1, -1)}`;
}

export interface ErrorFormatOptions {
  /** Adds `error.stack` (never in production by default). */
  includeStack?: boolean;
}

/** The one place an error becomes a response body and headers. Never mutates `error` (it may be frozen). */
export function errorResponse(
  error: ServerAdapterError,
  requestId: string,
  options: ErrorFormatOptions = {},
): { status: number; headers: ResponseHeaders; body: ErrorResponse } {
  const serialized = error.toJSON().error;
  const body: ErrorResponse = {
    error: { ...serialized, requestId },
    metadata: { timestamp: isoTimestamp(), requestId },
  };
  if (options.includeStack && typeof error.stack === "string") body.error.stack = error.stack;
  const headers: ResponseHeaders = { "content-type": "application/json; charset=utf-8" };
  if (serialized.retryAfter !== undefined) headers["retry-after"] = String(serialized.retryAfter);
  return { status: validStatus(error.statusCode), headers, body };
}

/** An error status the wire can carry; anything else (a hostile or buggy subclass) is a 500. */
function validStatus(status: unknown): number {
  return typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}

/**
 * The error body as JSON, whatever `details` holds: circular, BigInt, a throwing `toJSON`
 * or getter, or nesting deep enough to overflow the stack. It is retried without
 * `details` and `stack`, and finally replaced by `lastResortErrorJson`.
 */
export function errorBodyJson(body: ErrorResponse): string {
  try {
    return JSON.stringify(body);
  } catch {
    try {
      const { details: _details, stack: _stack, ...rest } = body.error;
      return JSON.stringify({ ...body, error: { ...rest, message: String(rest.message) } });
    } catch {
      return lastResortErrorJson(body.metadata.requestId);
    }
  }
}

/** Request ids that need no JSON escaping (the core's own rule for incoming and generated ids). */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The 500 envelope built from constants only: what is sent when shaping the real error failed
 * too. It cannot throw.
 */
export function lastResortErrorJson(requestId: string): string {
  const id = typeof requestId === "string" && SAFE_ID.test(requestId) ? requestId : "unknown";
  const timestamp = isoTimestamp();
  return `{"error":{"code":"HANDLER_ERROR","message":"Internal server error","category":"EXECUTION","requestId":"${id}"},"metadata":{"timestamp":"${timestamp}","requestId":"${id}"}}`;
}
