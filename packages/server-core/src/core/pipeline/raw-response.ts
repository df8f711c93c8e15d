import type { ResponseHeaders } from "../../contracts/http.js";
import type { ResponseBody } from "../../contracts/context.js";

const rawResponseMarker = Symbol.for("@conduit-ai/server-core/RawResponse");

/** A handler result sent as is, never wrapped in the success envelope (OpenAPI documents, metrics, proxies). */
export interface RawResponse {
  readonly [rawResponseMarker]: true;
  status: number;
  headers: ResponseHeaders;
  body: ResponseBody;
}

/**
 * @example
 * handler: () => rawResponse("# HELP ...", { headers: { "content-type": "text/plain; version=0.0.4" } })
 */
export function rawResponse(body: ResponseBody, init: { status?: number; headers?: ResponseHeaders } = {}): RawResponse {
  return { [rawResponseMarker]: true, status: init.status ?? 200, headers: init.headers ?? {}, body };
}

export function isRawResponse(value: unknown): value is RawResponse {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[rawResponseMarker] === true;
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === "function";
}
