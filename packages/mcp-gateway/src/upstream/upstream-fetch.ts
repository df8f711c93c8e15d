import { mcpTraceHeaders } from "@conduit-ai/server-core/internal";

/** Headers for one upstream HTTP request: the server's own, then the caller's credential (static, forwarded or exchanged). */
export type UpstreamHeaders = () => Promise<Record<string, string>>;

/**
 * `fetch` for an upstream server over HTTP: every request (POSTs, the GET stream, the DELETE)
 * carries the headers of this caller's connection — read per request, so a refreshed or exchanged
 * token is used as soon as it changes — and a traced call's W3C context from `params._meta` as
 * `traceparent`/`tracestate` headers, exact for concurrent calls on one connection.
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: upstreamFetch(async () => ({ authorization: `Bearer ${token}` })) });
 */
export function upstreamFetch(headersOf: UpstreamHeaders): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(await headersOf())) headers.set(name, value);
    for (const [name, value] of Object.entries(mcpTraceHeaders(init?.body))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}
