/** The body of one JSON-RPC request as the MCP SDK posts it, only as far as its trace context. */
interface TracedMessage {
  params?: { _meta?: { traceparent?: unknown; tracestate?: unknown } };
}

/**
 * `traceparent`/`tracestate` headers for an MCP request body that carries them in `params._meta`
 * (MCP's own place for a call's trace context, which stdio servers get too): copied to the HTTP
 * request, proxies and HTTP-level instrumentation in front of the server continue the trace. The
 * body, not an ambient "current span", is the source: exact for concurrent calls on one connection.
 */
export function mcpTraceHeaders(body: unknown): Record<string, string> {
  // Most messages (initialize, notifications, list calls) carry none: skip them without parsing.
  if (typeof body !== "string" || !body.includes('"traceparent"')) return {};
  try {
    const meta = (JSON.parse(body) as TracedMessage).params?._meta;
    const headers: Record<string, string> = {};
    if (typeof meta?.traceparent === "string") headers.traceparent = meta.traceparent;
    if (typeof meta?.tracestate === "string") headers.tracestate = meta.tracestate;
    return headers;
  } catch {
    return {};
  }
}
