import { mcpTraceHeaders } from "@conduit-ai/server-core/internal";

/**
 * `fetch` for an MCP server over HTTP: a `tools/call` traced by `McpConnection` carries its span's
 * W3C context in `params._meta`, copied into the HTTP request's `traceparent`/`tracestate` headers.
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: mcpTraceFetch });
 */
export function mcpTraceFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const trace = mcpTraceHeaders(init?.body);
  if (trace.traceparent === undefined) return fetch(input, init);
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(trace)) headers.set(name, value);
  return fetch(input, { ...init, headers });
}
