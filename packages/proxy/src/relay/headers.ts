import type { IncomingHttpHeaders } from "node:http";

/** Request headers never forwarded to any vendor: hop-by-hop, the client's own credential and address, framing. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "content-length",
  "accept-encoding",
  "authorization",
  "x-api-key",
  "cookie",
  "proxy-authorization",
  "proxy-connection",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "x-request-id",
]);
/** Response headers this hop re-makes (framing) or that would contradict it. */
const DROPPED_RESPONSE_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date", "server"]);

/**
 * The client's headers for upstream minus credentials, framing and Conduit's own (`x-conduit-*`),
 * and minus `vendorDropped` (headers the vendor's wire sets from the account instead).
 * `accept-encoding: identity`: the body is relayed as upstream encodes it, never decoded and re-encoded.
 *
 * @example
 * forwardedRequestHeaders(ctxHeaders, new Set(["chatgpt-account-id"]));
 */
export function forwardedRequestHeaders(incoming: Record<string, string>, vendorDropped?: ReadonlySet<string>): Record<string, string> {
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  for (const name in incoming) {
    const key = name.toLowerCase();
    if (DROPPED_REQUEST_HEADERS.has(key) || key.startsWith("x-conduit-") || vendorDropped?.has(key)) continue;
    headers[key] = incoming[name] as string;
  }
  return headers;
}

/** Upstream's response headers minus those this hop re-makes. */
export function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) relayed[name] = value;
  }
  return relayed;
}
