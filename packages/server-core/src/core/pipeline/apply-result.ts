import type { ContextResponse, ResponseBody } from "../../contracts/context.js";
import type { ResponseHeaders } from "../../contracts/http.js";
import { HandlerError } from "../../errors/server-errors.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import { ENVELOPE_METADATA_STATE, successEnvelopeJson } from "../errors/envelope.js";
import { type EventStreamOptions, applyEventStream } from "../streams/event-stream-response.js";
import { isAsyncIterable, isRawResponse } from "./raw-response.js";
import type { RequestContext } from "./request-context.js";
import { setOwn } from "./request-context.js";

/**
 * `instanceof Response` without reading the global `Response` per request: Node defines it
 * as a lazy getter, which costs more than the rest of a small answer's checks.
 */
let WebResponse: typeof Response | undefined;
export function isWebResponse(value: unknown): value is Response {
  if (typeof value !== "object" || value === null) return false;
  WebResponse ??= globalThis.Response;
  return value instanceof WebResponse;
}

/** A handler's own status must be one the wire can carry as a final answer. */
function checkStatus(status: unknown): number {
  if (typeof status === "number" && Number.isInteger(status) && status >= 200 && status <= 599) return status;
  throw new HandlerError("Internal server error", { cause: new TypeError(`Invalid response status ${String(status)}`) });
}

function checkBody(body: unknown): ResponseBody {
  if (body === null || body === undefined) return null;
  if (typeof body === "string" || body instanceof Uint8Array || isAsyncIterable(body)) return body as ResponseBody;
  throw new HandlerError("Internal server error", { cause: new TypeError(`Invalid raw response body of type ${typeof body}`) });
}

/** Copies headers with lower-case names, as own properties whatever the name (`__proto__` included). */
function copyHeaders(target: ResponseHeaders, source: ResponseHeaders): void {
  // Keys, not entries: no [key, value] pair per header on every relayed answer.
  for (const key of Object.keys(source)) setOwn(target, key.toLowerCase(), source[key] as ResponseHeaders[string]);
}

/**
 * A handler's `RawResponse` or web `Response` as the context's response, checked: a status
 * outside 200–599 or a body of another type is the handler's bug (500 `HANDLER_ERROR`), not
 * something for the bridges to trip over later. Returns false for any other result.
 */
export function applyRawResult(response: ContextResponse, result: unknown): boolean {
  if (isRawResponse(result)) {
    const status = checkStatus(result.status);
    const body = checkBody(result.body);
    if (result.headers !== undefined) copyHeaders(response.headers, result.headers);
    response.status = status;
    response.body = body;
    response.streaming = isAsyncIterable(body);
    return true;
  }
  if (isWebResponse(result)) {
    response.status = checkStatus(result.status);
    result.headers.forEach((value, key) => {
      if (key !== "set-cookie") setOwn(response.headers, key, value);
    });
    const cookies = result.headers.getSetCookie();
    if (cookies.length > 0) response.headers["set-cookie"] = cookies;
    response.body = result.body;
    response.streaming = result.body !== null;
    return true;
  }
  return false;
}

/**
 * A handler's result as the response: a raw or web `Response` as given, an async iterable as an
 * SSE/NDJSON event stream (`streamOptions` read only then), anything else as the success envelope
 * with the route's `successStatus`.
 */
export function applyRouteResult(
  context: RequestContext,
  result: unknown,
  route: RegisteredRoute,
  streamOptions: () => EventStreamOptions,
): void {
  const response = context.response;
  if (applyRawResult(response, result)) return;
  if (isAsyncIterable(result)) {
    applyEventStream(context, result, streamOptions());
    return;
  }
  // Serialized first: a result that cannot be (circular, BigInt, a throwing getter) leaves the response untouched.
  const extra = context.state[ENVELOPE_METADATA_STATE] as Record<string, unknown> | undefined;
  const body = successEnvelopeJson(result, context.requestId, context.startTime, extra);
  response.status = route.successStatus ?? 200;
  response.headers["content-type"] = "application/json; charset=utf-8";
  response.body = body;
}
