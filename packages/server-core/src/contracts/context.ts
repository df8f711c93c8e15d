import type { TraceSpan } from "./tracing.js";
import type { HttpMethod, IncomingHeaders, ResponseHeaders } from "./http.js";

export type { IncomingHeaders };
import type { MatchedRoute } from "./route-options.js";

export type QueryValues = Record<string, string | string[]>;

/** The identity an auth middleware attaches to `ctx.user`. */
export interface AuthenticatedUser {
  id: string;
  email?: string;
  name?: string;
  roles: string[];
  permissions: string[];
  metadata?: Record<string, unknown>;
}

/**
 * A response body as the pipeline carries it: bytes or text, or an async iterable
 * of chunks for streams (never buffered).
 */
export type ResponseBody = null | string | Uint8Array | AsyncIterable<Uint8Array | string>;

/** The response being built; middleware may read and change it after `await next()`. */
export interface ContextResponse {
  status: number;
  headers: ResponseHeaders;
  body: ResponseBody;
  /** True when `body` is a stream (SSE/NDJSON or a raw stream): never buffer it. */
  streaming: boolean;
}

/** What middleware and handlers see of one request, identical on every adapter. */
export interface ServerContext<TBody = unknown, TQuery = QueryValues, TParams = Record<string, string>> {
  /** Set by the core; the request id middleware may replace it before handlers run. */
  requestId: string;
  readonly method: HttpMethod | "HEAD";
  /** Decoded path without the query string, as the client sent it (includes `basePath`). */
  readonly path: string;
  params: TParams;
  query: TQuery;
  readonly headers: IncomingHeaders;
  /** Parsed body; filled right before the handler runs (`readBody()` reads it earlier). */
  body: TBody;
  user?: AuthenticatedUser;
  /** Aborted when the client disconnects or the request times out. */
  readonly abortSignal: AbortSignal;
  readonly abortController: AbortController;
  /** Per-request scratch space for middleware. */
  readonly state: Record<string, unknown>;
  /**
   * The client's address: the socket peer, or with `config.trustProxy` the rightmost
   * `X-Forwarded-For` address that is not a trusted proxy. What rate limits, logs and auth use.
   */
  readonly clientAddress: string;
  /** The socket peer's address (never a header). */
  readonly peerAddress: string;
  /**
   * True when `config.trustProxy` believes the socket peer (a proxy in front): only then are its
   * `X-Forwarded-Proto`, `-Host` and `Forwarded` headers facts rather than what a client wrote.
   * Optional so hand-made contexts type-check; absent reads as false.
   */
  readonly fromTrustedProxy?: boolean;
  /**
   * True when another route of this server dispatched the request in process (the console's
   * forward to `/admin`): the outer request was counted, so per-address limiters skip this one.
   */
  readonly inProcess?: boolean;
  /** The matched route; undefined for unknown paths. */
  readonly route: MatchedRoute | undefined;
  /** `performance.now()` when the request arrived. */
  readonly startTime: number;
  /**
   * The request's server span while tracing is on (undefined otherwise): the parent to pass to
   * spans a handler starts (`startSpan(name, { parent: ctx.traceSpan })`); `callContextOf(ctx)`
   * hands it to the runtime.
   */
  traceSpan?: TraceSpan;
  response: ContextResponse;
  /** A header's first value. */
  header(name: string): string | undefined;
  setHeader(name: string, value: string | string[]): void;
  appendHeader(name: string, value: string): void;
  /** Reads and parses the body once (JSON, form, text), honoring the size limit. */
  readBody(): Promise<unknown>;
  /**
   * The body's bytes exactly as received (size limit honored), read once and shared with
   * `readBody()`. Routes with `rawBody: true` get no parsed `body` and read this instead.
   */
  readRawBody(): Promise<Uint8Array | undefined>;
}
