/** The body of one JSON-RPC request as the SDK posts it, only as far as its trace context. */
interface TracedMessage {
  params?: { _meta?: { traceparent?: unknown; tracestate?: unknown } };
}

/** `traceparent`/`tracestate` of a request body that carries them in `params._meta`. */
function traceContextOf(body: unknown): Record<string, string> {
  // Most messages (notifications, listings) carry none: skip them without parsing.
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
    for (const [name, value] of Object.entries(traceContextOf(init?.body))) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}
