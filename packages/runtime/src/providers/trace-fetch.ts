import { getTracing } from "@conduit-ai/server-core";

/**
 * `fetch` that adds the active span's W3C `traceparent`/`tracestate`, so a vendor or an MCP
 * server continues the trace; exactly `fetch` when tracing is off.
 *
 * @example
 * createOpenAI({ apiKey, fetch: traceFetch });
 */
export function traceFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const span = getTracing().activeSpan();
  if (span === undefined) return fetch(input, init);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  for (const [name, value] of Object.entries(span.traceHeaders())) headers.set(name, value);
  return fetch(input, { ...init, headers });
}

/** The active span's trace headers, for a request made with `node:http` (none when tracing is off). */
export function traceHeaders(): Record<string, string> {
  return getTracing().activeSpan()?.traceHeaders() ?? {};
}
