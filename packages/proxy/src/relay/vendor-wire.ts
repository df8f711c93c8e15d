import type { IncomingHttpHeaders } from "node:http";
import type { TraceSpan } from "@conduit-ai/server-core";
import type { AccountConfig, Vendor } from "../config.js";
import type { Quota } from "../pool/store/pool-store.js";
import type { TapOutcome, UsageScanner } from "./body-tap.js";
import type { ProxyReply } from "./proxy-reply.js";

/** The request as the relay sends it: raw bytes plus the client's headers and query. */
export interface RelayRequest {
  headers: Record<string, string>;
  signal: AbortSignal;
  /** The query string of the client's request (`?beta=true`), forwarded as is. */
  search?: string;
  /**
   * Called once with the final answer's status and how its body ended, with the usage upstream
   * reported (streams: when the body ended or was cut; error answers: no usage). A gate settles here.
   */
  onAnswered?: (status: number, outcome: TapOutcome) => void;
  /** The parent of the call's spans when tracing is on (the client request's span). */
  traceSpan?: TraceSpan;
  /** A sticky session the translated request names (OpenAI's `prompt_cache_key`), below the session header. */
  sessionKey?: string;
}

/** A 429's verdict: cool the account until `resetAt` and try the next, or (undefined) answer the client as is. */
export interface RateLimitVerdict {
  resetAt: number;
  reason: string;
}

/**
 * What one vendor's wire format contributes to the shared relay loop: where requests go, which
 * headers carry the account's credential, how its 429s name a reset, how its answers report
 * usage and how its own errors look. Everything else (accounts, refresh, retries, failover) is the loop's.
 */
export interface VendorWire {
  vendor: Vendor;
  /** Label of warning lines, e.g. `proxy codex account`. */
  label: string;
  /** Where to send (the caller only reads it: a wire may hand out the same URL each time). */
  url(search: string | undefined): URL;
  /**
   * Headers for upstream: the client's (forwarded) and the account's `secret` (API key or OAuth
   * access token), in a new record per call (the transport sets `content-length` on it).
   */
  requestHeaders(incoming: Record<string, string>, account: AccountConfig, secret: string): Record<string, string>;
  /** Which sticky session the request belongs to, if any (`named`: the one a translated request names). */
  sessionKey(headers: Record<string, string>, body: Uint8Array, named?: string): string | undefined;
  /** Quota the answer's headers report, saved on the account. */
  quota?(headers: IncomingHttpHeaders, now: number): Quota | undefined;
  rateLimit(headers: IncomingHttpHeaders, body: Buffer, now: number): RateLimitVerdict | undefined;
  /** A fresh usage reader for an answer of this content type. */
  usageScanner(contentType: string): UsageScanner;
  errors: {
    unreachable(): ProxyReply;
    /** Every account is cooling; the soonest is back at `retryAt` (epoch ms). */
    cooling(retryAt: number): ProxyReply;
    unavailable(): ProxyReply;
  };
}
