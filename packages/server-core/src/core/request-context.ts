import { performance } from "node:perf_hooks";
import type { ContextResponse, IncomingHeaders, QueryValues, ServerContext } from "../contracts/context.js";
import type { HttpMethod } from "../contracts/http.js";
import type { RegisteredRoute } from "../contracts/route.js";
import type { AuthenticatedUser } from "../contracts/context.js";
import { StreamAbortedError } from "../errors/server-errors.js";

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
  clientAddress: string;
  route: RegisteredRoute | undefined;
  params: Record<string, string>;
  /** Created on first use when omitted: most requests never touch it, and an AbortController is costly per request. */
  abortController?: AbortController;
  /** Aborts the controller with `StreamAbortedError` when the client leaves; subscribed when the controller is created. */
  watchDisconnect?: DisconnectWatcher | undefined;
  readBody: () => Promise<unknown>;
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
  readonly clientAddress: string;
  readonly route: RegisteredRoute | undefined;
  readonly startTime = performance.now();
  response: ContextResponse = { status: 200, headers: {}, body: null, streaming: false };
  private readonly bodyReader: () => Promise<unknown>;
  private bodyPromise: Promise<unknown> | undefined;

  constructor(init: RequestContextInit) {
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.query = init.query;
    this.headers = init.headers;
    this.clientAddress = init.clientAddress;
    this.route = init.route;
    this.params = init.params;
    this.controller = init.abortController;
    this.watchDisconnect = init.watchDisconnect;
    this.bodyReader = init.readBody;
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
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  setHeader(name: string, value: string | string[]): void {
    this.response.headers[name.toLowerCase()] = value;
  }

  appendHeader(name: string, value: string): void {
    const key = name.toLowerCase();
    const existing = this.response.headers[key];
    this.response.headers[key] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }

  readBody(): Promise<unknown> {
    this.bodyPromise ??= this.bodyReader();
    return this.bodyPromise;
  }
}
