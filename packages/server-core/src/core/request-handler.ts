import { performance } from "node:perf_hooks";
import { randomUUID } from "node:crypto";
import type { EventEmitter } from "node:events";
import type { RequiredServerAdapterConfig } from "../contracts/config.js";
import type { IncomingHeaders, ResponseBody } from "../contracts/context.js";
import type { HttpMethod, ResponseHeaders } from "../contracts/http.js";
import type { RegisteredRoute } from "../contracts/route.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import {
  RouteNotFoundError,
  ServerValidationError,
  TimeoutError,
  serviceUnavailable,
} from "../errors/server-errors.js";
import { wrapError } from "../errors/wrap-error.js";
import { type BodySource, parseQuery, readRequestBody } from "./body-parser.js";
import { type ErrorFormatOptions, errorResponse, successEnvelopeJson } from "./envelope.js";
import { ERROR_HANDLING_STATE_KEY, type RequestErrorHandling } from "./error-handling-state.js";
import { type Logger, silentLogger } from "./logger.js";
import { MiddlewareStack } from "./middleware-stack.js";
import { isAsyncIterable, isRawResponse } from "./raw-response.js";
import { type DisconnectWatcher, RequestContext } from "./request-context.js";
import { DeadlineQueue } from "./deadline-queue.js";
import { RouteTable, type TableEntry } from "./route-table.js";
import { applyEventStream, recordStreamAbort } from "./event-stream-response.js";
import { type StreamEventTransform, createStreamRedactor } from "./stream-redaction.js";
import { validateRequest } from "./validate-request.js";

/** A request as an adapter hands it to the core. */
export interface IncomingRequest {
  method: string;
  /** Path and query string as sent. */
  url: string;
  headers: IncomingHeaders;
  clientAddress: string;
  body: BodySource;
  /** Aborts when the client disconnects. */
  signal?: AbortSignal;
  /**
   * Alternative to `signal` for Node servers: registers `listener` for the client
   * disconnecting (calling it at once when already gone) and returns its removal. The core
   * subscribes only when a handler or middleware asks for `ctx.abortSignal`.
   */
  watchDisconnect?: DisconnectWatcher;
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
  done(): void;
}

/** Dot segments, plain or percent-encoded, that URL parsers (and so some routers) resolve. */
const DOT_SEGMENT = /\/(\.|%2e)/i;

/**
 * Resolves `.`/`..` segments the way WHATWG URL parsing does, so routing, middleware path
 * filters and auth `skipPaths` all judge the same path on every adapter: `/api/public/../private`
 * is `/api/private`, never a borrowed public prefix.
 */
function canonicalPath(path: string): string {
  return DOT_SEGMENT.test(path) ? new URL(path, "http://localhost").pathname : path;
}

/** An incoming `x-request-id` is honored only when it cannot smuggle anything into logs or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The framework-neutral request pipeline shared by every adapter: route lookup and
 * params, middleware by order, body parsing and limits, validation, the handler,
 * result shaping (envelope, raw, stream), errors, timeouts, draining and events.
 */
export class RequestHandler {
  readonly routes = new RouteTable();
  readonly middleware = new MiddlewareStack();
  errorFormat: ErrorFormatOptions = { includeStack: false };
  logger: Logger = silentLogger;
  private inFlight = 0;
  private drainWaiters: Array<() => void> = [];
  draining = false;
  /** `config.redaction` applied to every streamed event, on every adapter. */
  private readonly streamRedactor: StreamEventTransform | undefined;
  /** `config.timeout` of every request in flight. */
  private readonly deadlines: DeadlineQueue;

  constructor(
    readonly config: RequiredServerAdapterConfig,
    private readonly events: Pick<EventEmitter, "emit" | "listenerCount">,
  ) {
    this.streamRedactor = createStreamRedactor(config.redaction);
    this.deadlines = new DeadlineQueue(config.timeout);
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Resolves once no request is in flight. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Handles one request. `route` is the route the framework's router matched; without
   * it the core matches the path itself (late routes, 404, OPTIONS).
   */
  async dispatch(input: IncomingRequest, route?: RegisteredRoute): Promise<OutgoingResponse> {
    this.inFlight++;
    const queryIndex = input.url.indexOf("?");
    const path = canonicalPath(queryIndex === -1 ? input.url : input.url.slice(0, queryIndex));
    const search = queryIndex === -1 ? "" : input.url.slice(queryIndex + 1);
    const method = input.method.toUpperCase() as HttpMethod | "HEAD";
    let lookup: { entry?: TableEntry; allowed: HttpMethod[] } = { allowed: [] };
    // Matching decodes params: a malformed `%` escape must become the 400 envelope below, not a rejection.
    let lookupError: unknown;
    try {
      lookup = route ? { entry: this.routes.entryFor(route), allowed: [route.method] } : this.routes.find(method, path);
    } catch (error) {
      lookupError = error;
    }
    const incomingId = input.headers["x-request-id"];
    const context = new RequestContext({
      requestId: typeof incomingId === "string" && SAFE_REQUEST_ID.test(incomingId) ? incomingId : `req-${randomUUID()}`,
      method,
      path,
      query: {},
      headers: input.headers,
      clientAddress: input.clientAddress,
      route: lookup.entry?.route,
      params: {},
      watchDisconnect: input.watchDisconnect ?? (input.signal ? watchSignal(input.signal) : undefined),
      readBody: () =>
        BODY_METHODS.has(method)
          ? readRequestBody(input.body, {
              limit: this.config.bodyParser.limit,
              contentType: firstValue(input.headers["content-type"]),
              contentLength: firstValue(input.headers["content-length"]),
            })
          : Promise.resolve(undefined),
    });
    context.response.headers["x-request-id"] = context.requestId;
    if (this.events.listenerCount("request") > 0) {
      this.emitSafe("request", { requestId: context.requestId, method, path, timestamp: Date.now() });
    }

    try {
      if (lookupError !== undefined) throw lookupError;
      if (search !== "") context.query = parseQuery(search);
      if (lookup.entry && lookup.entry.pattern.paramNames.length > 0) context.params = matchParams(lookup.entry, path);
      if (this.draining) {
        context.setHeader("connection", "close");
        throw serviceUnavailable();
      }
      await this.withTimeout(context, this.runPipeline(context, lookup.entry, lookup.allowed));
    } catch (error) {
      this.applyError(context, error);
    }

    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      // Abandoned before its last event (the bridge may call done() before the encoder unwinds).
      recordStreamAbort(context, this.logger);
      context.stopWatchingDisconnect();
      if (this.events.listenerCount("response") > 0) {
        this.emitSafe("response", {
          requestId: context.requestId,
          statusCode: context.response.status,
          duration: performance.now() - context.startTime,
          timestamp: Date.now(),
        });
      }
      if (--this.inFlight === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
    };
    const response = context.response;
    if (method === "HEAD" && !response.streaming) {
      if (response.body !== null) response.headers["content-length"] = String(Buffer.byteLength(response.body as string | Uint8Array));
      response.body = null;
    }
    return { status: response.status, headers: response.headers, body: response.body, streaming: response.streaming, done };
  }

  private runPipeline(context: RequestContext, entry: TableEntry | undefined, allowed: HttpMethod[]): Promise<void> {
    const chain = this.middleware.forRequest(context.path, this.config.basePath, entry?.route.middleware);
    return MiddlewareStack.run(chain, context, () => this.runHandler(context, entry, allowed));
  }

  private async runHandler(context: RequestContext, entry: TableEntry | undefined, allowed: HttpMethod[]): Promise<void> {
    if (!entry) {
      if (allowed.length > 0) context.setHeader("allow", [...new Set([...allowed, "OPTIONS"])].join(", "));
      if (context.method === "OPTIONS" && allowed.length > 0) {
        context.response.status = 204;
        context.response.body = null;
        return;
      }
      throw new RouteNotFoundError(context.method, context.path, allowed.length > 0 ? { details: { allowed } } : {});
    }
    const route = entry.route;
    // A middleware (e.g. validation) may already have set a normalized body.
    if (context.body === undefined) context.body = await context.readBody();
    if (route.schema) {
      const parsed = validateRequest(route.schema, context);
      if (parsed.params !== undefined) context.params = parsed.params as Record<string, string>;
      if (parsed.query !== undefined) context.query = parsed.query as Record<string, string>;
      if ("body" in parsed) context.body = parsed.body;
    }
    let result: unknown = route.handler(context as never);
    // A plain value needs no extra turn of the microtask queue.
    if (typeof (result as PromiseLike<unknown> | null)?.then === "function") result = await result;
    this.applyResult(context, result, route);
  }

  private applyResult(context: RequestContext, result: unknown, route: RegisteredRoute): void {
    const response = context.response;
    if (isRawResponse(result)) {
      response.status = result.status;
      Object.assign(response.headers, lowerCaseKeys(result.headers));
      response.body = result.body;
      response.streaming = isAsyncIterable(result.body);
      return;
    }
    if (isWebResponse(result)) {
      response.status = result.status;
      result.headers.forEach((value, key) => {
        if (key !== "set-cookie") response.headers[key] = value;
      });
      const cookies = result.headers.getSetCookie();
      if (cookies.length > 0) response.headers["set-cookie"] = cookies;
      response.body = result.body;
      response.streaming = result.body !== null;
      return;
    }
    if (isAsyncIterable(result)) {
      applyEventStream(context, result, {
        keepAliveMs: this.config.streaming.keepAliveMs,
        redactor: this.streamRedactor,
        logger: this.logger,
        onError: (error) => this.reportError(context, wrapError(error, { requestId: context.requestId }), error),
      });
      return;
    }
    response.status = route.successStatus ?? 200;
    response.headers["content-type"] = "application/json; charset=utf-8";
    response.body = successEnvelopeJson(result, context.requestId, context.startTime);
  }

  /** Turns any failure into the error envelope, keeping headers middleware already set (security, CORS, request id). */
  applyError(context: RequestContext, thrown: unknown): void {
    if (thrown instanceof URIError) {
      this.applyError(context, new ServerValidationError("Malformed percent-encoding in path", [{ field: "path", message: thrown.message }]));
      return;
    }
    const error = wrapError(thrown, { requestId: context.requestId, path: context.path, method: context.method });
    // The error-handling middleware leaves its options here and has already logged the error.
    const handling = context.state[ERROR_HANDLING_STATE_KEY] as RequestErrorHandling | undefined;
    if (error.statusCode >= 500) this.reportError(context, error, thrown, handling?.logged === true);
    const format = handling ? { ...this.errorFormat, includeStack: handling.includeStack } : this.errorFormat;
    const { status, headers, body } = errorResponse(error, context.requestId, format);
    const response = context.response;
    response.status = status;
    Object.assign(response.headers, headers);
    if (status === 413) response.headers.connection = "close";
    response.body = JSON.stringify(body);
    response.streaming = false;
  }

  private reportError(context: RequestContext, error: ServerAdapterError, cause: unknown, alreadyLogged = false): void {
    if (!alreadyLogged) this.logger.error({ requestId: context.requestId, code: error.code, path: context.path, err: cause }, "request failed");
    this.emitSafe("error", { requestId: context.requestId, error: cause instanceof Error ? cause : error, timestamp: Date.now() });
  }

  /** Bounds everything before the response starts; a stream's body is not bounded. */
  private withTimeout(context: RequestContext, work: Promise<void>): Promise<void> {
    // One promise settled by whichever comes first (cheaper per request than race + finally).
    return new Promise<void>((resolve, reject) => {
      const deadline = this.deadlines.add(context.startTime, () => {
        const error = new TimeoutError(`Request timed out after ${this.config.timeout} ms`);
        context.abortController.abort(error);
        reject(error);
      });
      work.then(
        () => {
          this.deadlines.remove(deadline);
          resolve();
        },
        (error: unknown) => {
          this.deadlines.remove(deadline);
          reject(error);
        },
      );
    });
  }

  /** An `error` event without a listener must never throw (EventEmitter's default). */
  emitSafe(event: string, payload: unknown): void {
    if (event === "error" && this.events.listenerCount("error") === 0) return;
    try {
      this.events.emit(event, payload);
    } catch (error) {
      this.logger.error({ err: error, event }, "event listener threw");
    }
  }
}

function matchParams(entry: TableEntry, path: string): Record<string, string> {
  return entry.pattern.match(path) ?? {};
}

/**
 * `instanceof Response` without reading the global `Response` per request: Node defines it
 * as a lazy getter, which costs more than the rest of a small answer's checks.
 */
let WebResponse: typeof Response | undefined;
function isWebResponse(value: unknown): value is Response {
  if (typeof value !== "object" || value === null) return false;
  WebResponse ??= globalThis.Response;
  return value instanceof WebResponse;
}

/** A web `AbortSignal` (the web bridge's) as the context's disconnect watcher. */
function watchSignal(signal: AbortSignal): DisconnectWatcher {
  return (listener) => {
    if (signal.aborted) {
      listener();
      return () => {};
    }
    signal.addEventListener("abort", listener, { once: true });
    return () => signal.removeEventListener("abort", listener);
  };
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function lowerCaseKeys(headers: ResponseHeaders): ResponseHeaders {
  const result: ResponseHeaders = {};
  for (const [key, value] of Object.entries(headers)) result[key.toLowerCase()] = value;
  return result;
}

export { ServerAdapterError };
