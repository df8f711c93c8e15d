import type { ContextResponse, IncomingHeaders, QueryValues, ServerContext } from "../contracts/context.js";
import type { HttpMethod } from "../contracts/http.js";
import type { RegisteredRoute } from "../contracts/route.js";
import type { AuthenticatedUser } from "../contracts/context.js";

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
    this.bodyReader = init.readBody;
  }

  get abortController(): AbortController {
    this.controller ??= new AbortController();
    return this.controller;
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
