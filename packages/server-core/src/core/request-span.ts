import type { TraceSpan, Tracing } from "../contracts/tracing.js";
import { isAsyncIterable } from "./raw-response.js";
import type { RequestContext } from "./request-context.js";
import type { OutgoingResponse } from "./request-io.js";

/** `Host` split into the `server.address` and `server.port` of the HTTP conventions. */
function hostParts(host: string | undefined): { address?: string; port?: number } {
  if (!host) return {};
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  if (!match) return {};
  return { address: match[1], ...(match[2] ? { port: Number(match[2]) } : {}) };
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
 * Ends the request's span when the response is over: at once for a plain body, at the end of a
 * stream otherwise (the bridge calls `done` then). A stream's chunks are pulled with the span
 * active, so model calls a stream makes lazily are its children.
 */
export function traceResponse(tracing: Tracing, span: TraceSpan, context: RequestContext, outgoing: OutgoingResponse): OutgoingResponse {
  if (outgoing.streaming && isAsyncIterable(outgoing.body)) outgoing.body = tracing.bindIterable(span, outgoing.body);
  const done = outgoing.done;
  outgoing.done = () => {
    endRequestSpan(span, context, outgoing.status);
    done();
  };
  return outgoing;
}

function endRequestSpan(span: TraceSpan, context: RequestContext, status: number): void {
  // A route found only now (core-matched late routes) still names the span's route attribute.
  span.setAttributes({ "http.response.status_code": status, "http.route": context.route?.fullPath });
  if (status >= 500) span.fail(String(status));
  span.end();
}
