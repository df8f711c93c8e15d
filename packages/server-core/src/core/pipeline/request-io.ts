import type { IncomingHeaders, ResponseBody } from "../../contracts/context.js";
import type { ResponseHeaders } from "../../contracts/http.js";
import type { BodySource } from "../body/body-parser.js";
import type { DisconnectWatcher } from "./request-context.js";

/** A request as an adapter hands it to the core. */
export interface IncomingRequest {
  method: string;
  /** The request target as sent: path and query, or `*`, or an absolute URL. */
  url: string;
  headers: IncomingHeaders;
  /** The socket peer's address; the core derives the client address from it (`config.trustProxy`). */
  clientAddress: string;
  /** `1.1`, `1.0`… when known: an HTTP/1.1 request without `Host` is a 400. */
  httpVersion?: string;
  body: BodySource;
  /** Aborts when the client disconnects. */
  signal?: AbortSignal;
  /**
   * Alternative to `signal` for Node servers: registers `listener` for the client
   * disconnecting (calling it at once when already gone) and returns its removal. The core
   * subscribes only when a handler or middleware asks for `ctx.abortSignal`.
   */
  watchDisconnect?: DisconnectWatcher;
  /**
   * Sent by another route of the same server, in process (the console's forward to `/admin`):
   * that outer request was already counted, so per-address limiters do not count this one again.
   * Never from the network: no adapter sets it.
   */
  inProcess?: boolean;
}

/**
 * The core's answer. Adapters write it and must call `done()` once the body is fully
 * written or abandoned: the request counts as in flight (for draining) until then.
 */
export interface OutgoingResponse {
  status: number;
  headers: ResponseHeaders;
  body: ResponseBody;
  streaming: boolean;
  /**
   * Set when the answer closes the connection (`Connection: close`, e.g. a 413): the bridge
   * keeps reading and discarding what the client still sends, for at most `ms` and `bytes`,
   * before closing, so the client sees the answer instead of a reset (lingering close).
   */
  linger?: LingerOptions;
  done(): void;
}

export interface LingerOptions {
  ms: number;
  bytes: number;
}
