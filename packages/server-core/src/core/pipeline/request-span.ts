import type { TraceSpan, Tracing } from "../../contracts/tracing.js";
import { isAsyncIterable } from "./raw-response.js";
import type { RequestContext } from "./request-context.js";
import type { OutgoingResponse } from "./request-io.js";

type HostParts = { address?: string; port?: number };

// Every request of a server names the same `Host` or one of a few: the last one's parts are kept,
// so the regular expression runs when the host changes, not once a request.
let lastHost: string | undefined;
let lastParts: HostParts = {};

/** `Host` split into the `server.address` and `server.port` of the HTTP conventions. */
function hostParts(host: string | undefined): HostParts {
  if (!host) return {};
  if (host === lastHost) return lastParts;
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  const parts: HostParts = match ? { address: match[1], ...(match[2] ? { port: Number(match[2]) } : {}) } : {};
  lastHost = host;
  lastParts = parts;
  return parts;
}

/**
 * The server span of one request, named and attributed as OpenTelemetry's HTTP semantic
 * conventions say (`GET /api/tools/:name`; only the method when no route matched, so span
 * names stay bounded). Continues the trace of an incoming `traceparent`. Query strings and
 * headers other than `Host` and `User-Agent` are never recorded: they may carry secrets.
 *
 * @example
 * const span = startRequestSpan(getTracing(), context, "1.1");
 */
export function startRequestSpan(tracing: Tracing, context: RequestContext, httpVersion: string | undefined): TraceSpan {
  const route = context.route?.fullPath;
  const host = hostParts(context.header("host"));
  return tracing.startRequestSpan(route ? `${context.method} ${route}` : context.method, context.headers, {
    "http.request.method": context.method,
    "http.route": route,
    "url.path": context.path,
    "server.address": host.address,
    "server.port": host.port,
    "network.protocol.version": httpVersion,
    "user_agent.original": context.header("user-agent"),
    "conduit.request_id": context.requestId,
  });
}

/**
 * The body of a traced response: a stream's chunks are pulled with the request's span active, so
 * model calls a stream makes lazily are its children. The span itself ends in the response's
 * `done()` (`endRequestSpan`), at once for a plain body, at the end of a stream otherwise.
 */
export function tracedBody(
  tracing: Tracing,
  span: TraceSpan,
  outgoing: Pick<OutgoingResponse, "body" | "streaming">,
): OutgoingResponse["body"] {
  return outgoing.streaming && isAsyncIterable(outgoing.body) ? tracing.bindIterable(span, outgoing.body) : outgoing.body;
}

/** Ends the request's span with the status that was sent. */
export function endRequestSpan(span: TraceSpan, context: RequestContext, status: number): void {
  // A route found only now (core-matched late routes) still names the span's route attribute.
  span.setAttributes({ "http.response.status_code": status, "http.route": context.route?.fullPath });
  if (status >= 500) span.fail(String(status));
  span.end();
}
