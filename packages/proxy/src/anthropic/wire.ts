import type { IncomingHttpHeaders } from "node:http";
import type { AccountConfig } from "../config.js";

/** Request headers never forwarded: hop-by-hop, the client's own credential, framing. */
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
const OAUTH_BETA = "oauth-2025-04-20";

/** Upstream's response headers minus those this hop re-makes. */
export function relayedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const relayed: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) relayed[name] = value;
  }
  return relayed;
}

/** Headers for upstream: the client's own (anthropic-version, anthropic-beta, ...) minus credentials and framing. */
export function forwardedHeaders(incoming: Record<string, string>, account: AccountConfig): Record<string, string> {
  // identity: the body is relayed as upstream encodes it, never decoded and re-encoded.
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  for (const name in incoming) {
    const key = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(key) && !key.startsWith("x-conduit-")) headers[key] = incoming[name] as string;
  }
  if (account.type === "oauth") {
    const betas = headers["anthropic-beta"]?.split(",").map((beta) => beta.trim()) ?? [];
    if (!betas.includes(OAUTH_BETA)) headers["anthropic-beta"] = [...betas.filter(Boolean), OAUTH_BETA].join(",");
  }
  return headers;
}

/** The request's `metadata.user_id`, read only when the bytes mention it. */
export function userIdOf(body: Uint8Array): string | undefined {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.indexOf('"user_id"') === -1) return undefined;
  try {
    const parsed = JSON.parse(bytes.toString("utf8")) as { metadata?: { user_id?: unknown } };
    const userId = parsed.metadata?.user_id;
    return typeof userId === "string" && userId !== "" ? userId : undefined;
  } catch {
    return undefined;
  }
}

/** Waits `baseMs × 2^retry` with jitter; rejects when the client leaves meanwhile. */
export function backoff(baseMs: number, retry: number, signal: AbortSignal): Promise<void> {
  const delay = baseMs * 2 ** retry * (0.5 + Math.random() / 2);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, delay);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
