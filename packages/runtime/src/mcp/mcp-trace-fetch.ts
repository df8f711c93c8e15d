/** The body of one JSON-RPC request as the MCP SDK posts it, only as far as its trace context. */
interface TracedMessage {
  params?: { _meta?: { traceparent?: unknown; tracestate?: unknown } };
}

/** `traceparent`/`tracestate` of a request body that carries them in `params._meta`. */
function traceContextOf(body: unknown): Record<string, string> {
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

/**
 * `fetch` for an MCP server over HTTP: a `tools/call` traced by `McpConnection` carries its span's
 * W3C context in `params._meta` (MCP's own place for it, which stdio servers get too), and this
 * copies it into the HTTP request's `traceparent`/`tracestate` headers, so proxies and HTTP-level
 * instrumentation in front of the server continue the trace as well. The body, not an ambient
 * "current span", is the source: it is exact for concurrent calls on one connection.
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: mcpTraceFetch });
 */
export function mcpTraceFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const trace = traceContextOf(init?.body);
  if (trace.traceparent === undefined) return fetch(input, init);
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(trace)) headers.set(name, value);
  return fetch(input, { ...init, headers });
}
