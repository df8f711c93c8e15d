import { performance } from "./clock.js";
import type { TraceSpan } from "../../contracts/tracing.js";
import type { ContextResponse, IncomingHeaders, QueryValues, ServerContext } from "../../contracts/context.js";
import type { HttpMethod } from "../../contracts/http.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import type { AuthenticatedUser } from "../../contracts/context.js";
import { StreamAbortedError } from "../../errors/server-errors.js";
import { type TrustFunction, resolveClientAddress } from "../credentials/client-address.js";

/**
 * Subscribes `listener` to the client going away (calling it at once when it already
 * has) and returns the unsubscribe.
 */
export type DisconnectWatcher = (listener: () => void) => () => void;

export interface RequestContextInit {
  requestId: string;
  method: HttpMethod | "HEAD";
  path: string;
  query: QueryValues;
  headers: IncomingHeaders;
  /** The socket peer. */
  peerAddress: string;
  /** `config.trustProxy`, compiled: which forwarded entries make the client address. */
  trustProxy: TrustFunction;
  route: RegisteredRoute | undefined;
  params: Record<string, string>;
  /** Created on first use when omitted: most requests never touch it, and an AbortController is costly per request. */
  abortController?: AbortController;
  /** Aborts the controller with `StreamAbortedError` when the client leaves; subscribed when the controller is created. */
  watchDisconnect?: DisconnectWatcher | undefined;
  readBody: () => Promise<unknown>;
  /** Dispatched in process by another route (`IncomingRequest.inProcess`). */
  inProcess?: boolean;
  /** The body's bytes as received; none when omitted (upgrades). */
  readRawBody?: () => Promise<Uint8Array | undefined>;
}

/** The concrete `ServerContext`; a class so its methods live once on the prototype. */
export class RequestContext implements ServerContext {
  requestId: string;
  readonly method: HttpMethod | "HEAD";
  readonly path: string;
  params: Record<string, string>;
  query: QueryValues;
  readonly headers: IncomingHeaders;
  body: unknown = undefined;
  user?: AuthenticatedUser;
  private controller: AbortController | undefined;
  private watchDisconnect: DisconnectWatcher | undefined;
  private unwatchDisconnect: (() => void) | undefined;
  readonly state: Record<string, unknown> = {};
  readonly peerAddress: string;
  readonly inProcess: boolean;
  private readonly trustProxy: TrustFunction;
  private resolvedClientAddress: string | undefined;
  readonly route: RegisteredRoute | undefined;
  readonly startTime = performance.now();
  traceSpan?: TraceSpan;
  response: ContextResponse = { status: 200, headers: {}, body: null, streaming: false };
  private readonly bodyReader: () => Promise<unknown>;
  private bodyPromise: Promise<unknown> | undefined;
  private readonly rawBodyReader: (() => Promise<Uint8Array | undefined>) | undefined;
  private rawBodyPromise: Promise<Uint8Array | undefined> | undefined;

  constructor(init: RequestContextInit) {
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.query = init.query;
    this.headers = init.headers;
    this.peerAddress = init.peerAddress;
    this.inProcess = init.inProcess === true;
    this.trustProxy = init.trustProxy;
    this.route = init.route;
    this.params = init.params;
    this.controller = init.abortController;
    this.watchDisconnect = init.watchDisconnect;
    this.bodyReader = init.readBody;
    this.rawBodyReader = init.readRawBody;
  }

  /**
   * Made on first use, and only then subscribed to the client disconnecting: a request whose
   * handler never looks at its signal (most plain JSON routes) pays for neither.
   */
  get abortController(): AbortController {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      this.unwatchDisconnect = this.watchDisconnect?.(() => controller.abort(new StreamAbortedError()));
    }
    return this.controller;
  }

  /** Whether `config.trustProxy` believes the socket peer: only then do its `X-Forwarded-*` headers count. */
  get fromTrustedProxy(): boolean {
    if (this.peerAddress === "") return false;
    try {
      return this.trustProxy(this.peerAddress, 0);
    } catch {
      // A user's trust function that throws trusts nothing.
      return false;
    }
  }

  /** Resolved on first use (most requests never ask), with `config.trustProxy`. */
  get clientAddress(): string {
    this.resolvedClientAddress ??= resolveClientAddress(this.peerAddress, this.headers, this.trustProxy);
    return this.resolvedClientAddress;
  }

  /** The request is over: a client leaving now is no longer an abort. */
  stopWatchingDisconnect(): void {
    this.watchDisconnect = undefined;
    this.unwatchDisconnect?.();
    this.unwatchDisconnect = undefined;
  }

  get abortSignal(): AbortSignal {
    return this.abortController.signal;
  }

  header(name: string): string | undefined {
    const key = name.toLowerCase();
    // Own headers only: `header("constructor")` must not find Object.prototype's.
    if (!Object.hasOwn(this.headers, key)) return undefined;
    const value = this.headers[key];
    return Array.isArray(value) ? value[0] : value;
  }

  setHeader(name: string, value: string | string[]): void {
    setOwn(this.response.headers, name.toLowerCase(), value);
  }

  appendHeader(name: string, value: string): void {
    const key = name.toLowerCase();
    const existing = Object.hasOwn(this.response.headers, key) ? this.response.headers[key] : undefined;
    setOwn(this.response.headers, key, existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value]);
  }

  readBody(): Promise<unknown> {
    this.bodyPromise ??= this.bodyReader();
    return this.bodyPromise;
  }

  readRawBody(): Promise<Uint8Array | undefined> {
    this.rawBodyPromise ??= this.rawBodyReader ? this.rawBodyReader() : Promise.resolve(undefined);
    return this.rawBodyPromise;
  }
}

/** Sets an own property even for `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A web `AbortSignal` (the web bridge's) as the context's disconnect watcher. */
export function watchSignal(signal: AbortSignal): DisconnectWatcher {
  return (listener) => {
    if (signal.aborted) {
      listener();
      return () => {};
    }
    signal.addEventListener("abort", listener, { once: true });
    return () => signal.removeEventListener("abort", listener);
  };
}

/** A request header's first value. */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
