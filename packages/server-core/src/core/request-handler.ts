import { performance } from "./clock.js";
import { randomUUID } from "node:crypto";
import { type EventEmitter, setMaxListeners } from "node:events";
import type { RequiredServerAdapterConfig } from "../contracts/config.js";
import { HTTP_METHODS, type HttpMethod } from "../contracts/http.js";
import type { RegisteredRoute } from "../contracts/route.js";
import { ServerAdapterError } from "../errors/server-adapter-error.js";
import {
  HandlerError,
  RouteNotFoundError,
  ServerValidationError,
  StreamingError,
  TimeoutError,
  serviceUnavailable,
} from "../errors/server-errors.js";
import { applyRawResult } from "./apply-result.js";
import { parseQuery, parseRawBody, readRawRequestBody, readRequestBody } from "./body-parser.js";
import { type TrustFunction, compileTrustProxy } from "./client-address.js";
import { ENVELOPE_METADATA_STATE, type ErrorFormatOptions, successEnvelopeJson } from "./envelope.js";
import { ErrorShapeTable } from "./error-shapes.js";
import { applyErrorResponse, lastResortResponse, logSafely, reportServerError } from "./error-responder.js";
import { type Logger, silentLogger } from "./logger.js";
import { MiddlewareStack } from "./middleware-stack.js";
import { isAsyncIterable } from "./raw-response.js";
import { RequestContext, firstHeader, watchSignal } from "./request-context.js";
import { DeadlineQueue } from "./deadline-queue.js";
import { type RequestTarget, parseRequestTarget } from "./request-target.js";
import { RouteTable, type TableEntry, malformedEscapeAsRequestError, paramsOf } from "./route-table.js";
import { applyEventStream, isOpenEventStream, recordStreamAbort } from "./event-stream-response.js";
import { type StreamEventTransform, createStreamRedactor, setGlobalStreamRedactor } from "./stream-redaction.js";
import type { IncomingRequest, LingerOptions, OutgoingResponse } from "./request-io.js";
import { validateRequest } from "./validate-request.js";
import { startRequestSpan, traceResponse } from "./request-span.js";
import { type TraceSpan, getTracing } from "../contracts/tracing.js";
import type { RateLimiter } from "../middleware/rate-limit/rate-limiter.js";

export type { IncomingRequest, LingerOptions, OutgoingResponse } from "./request-io.js";

/** An incoming `x-request-id` is honored only when it cannot smuggle anything into logs or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** What `OPTIONS *` answers: the methods this server understands at all. */
const SERVER_METHODS = ["HEAD", ...HTTP_METHODS].join(", ");

interface Prepared {
  context: RequestContext;
  target: RequestTarget | undefined;
  entry: TableEntry | undefined;
  allowed: HttpMethod[];
  lookupError: unknown;
  httpVersion: string | undefined;
}

/**
 * The framework-neutral request pipeline shared by every adapter: route lookup and
 * params, middleware by order, body parsing and limits, validation, the handler,
 * result shaping (envelope, raw, stream), errors, timeouts, draining and events.
 * `dispatch` never rejects: whatever a request brings or a handler does, the answer is an
 * envelope and the request is released.
 */
export class RequestHandler {
  readonly routes = new RouteTable();
  readonly middleware = new MiddlewareStack();
  /** Surfaces answering errors in their own shape (a vendor API's on a proxy), by path prefix. */
  readonly errorShapes = new ErrorShapeTable();
  errorFormat: ErrorFormatOptions = { includeStack: false };
  logger: Logger = silentLogger;
  /** The default stack's limiter (`config.rateLimit`), shared with other surfaces such as the WebSocket. */
  rateLimiter: RateLimiter | undefined;
  private inFlight = 0;
  private openStreams = 0;
  private drainWaiters: Array<() => void> = [];
  draining = false;
  /** `config.redaction` applied to every streamed event, on every adapter. */
  private readonly streamRedactor: StreamEventTransform | undefined;
  /** `config.timeout` of every request in flight. */
  private readonly deadlines: DeadlineQueue;
  private readonly routeDeadlines = new Map<number, DeadlineQueue>();
  /** `config.trustProxy`, compiled once. */
  readonly trustProxy: TrustFunction;
  private readonly linger: LingerOptions;
  /** Aborted by `interruptStreams()`: every event stream open then sends its final event and ends. */
  private streamShutdown = new AbortController();

  constructor(
    readonly config: RequiredServerAdapterConfig,
    private readonly events: Pick<EventEmitter, "emit" | "listenerCount">,
  ) {
    this.streamRedactor = createStreamRedactor(config.redaction);
    this.deadlines = new DeadlineQueue(config.timeout);
    this.trustProxy = compileTrustProxy(config.trustProxy);
    this.linger = { ms: config.bodyParser.lingerMs, bytes: config.bodyParser.lingerLimit };
    // One listener per open stream on this signal: thousands of streams are expected, not a leak.
    setMaxListeners(0, this.streamShutdown.signal);
  }

  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Event streams (SSE/NDJSON) being written right now. */
  get openStreamCount(): number {
    return this.openStreams;
  }

  /**
   * Ends every event stream still running with a final `error` event (`SERVER_SHUTTING_DOWN`)
   * and aborts its handler; the graceful stop calls it when the drain timeout has passed.
   * Streams started later are not affected.
   */
  interruptStreams(): void {
    const current = this.streamShutdown;
    this.streamShutdown = new AbortController();
    setMaxListeners(0, this.streamShutdown.signal);
    current.abort();
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
    let context: RequestContext | undefined;
    let span: TraceSpan | undefined;
    try {
      const prepared = this.prepare(input, route);
      context = prepared.context;
      const tracing = getTracing();
      if (!tracing.enabled) {
        await this.process(prepared);
        return this.respond(context);
      }
      const traced = startRequestSpan(tracing, context, input.httpVersion);
      span = traced;
      await tracing.runInSpan(traced, () => this.process(prepared));
      return traceResponse(tracing, traced, context, this.respond(context));
    } catch (failure) {
      span?.fail(failure);
      span?.end();
      // Only a failure no guard foresaw gets here; it still leaves as an envelope and releases the request.
      logSafely(this.logger, "error", { err: failure, requestId: context?.requestId }, "request handling failed");
      return this.lastResort(context?.requestId ?? `req-${randomUUID()}`);
    }
  }

  private prepare(input: IncomingRequest, route: RegisteredRoute | undefined): Prepared {
    const target = parseRequestTarget(input.url);
    const path = target?.path ?? "/";
    const method = input.method.toUpperCase() as HttpMethod | "HEAD";
    let lookup: { entry?: TableEntry; allowed: HttpMethod[] } = { allowed: [] };
    // Matching decodes params: a malformed `%` escape must become the 400 envelope, not a rejection.
    let lookupError: unknown;
    try {
      if (target) lookup = route ? { entry: this.routes.entryFor(route), allowed: [route.method] } : this.routes.find(method, path);
    } catch (error) {
      lookupError = error;
    }
    const incomingId = input.headers["x-request-id"];
    const context: RequestContext = new RequestContext({
      requestId: typeof incomingId === "string" && SAFE_REQUEST_ID.test(incomingId) ? incomingId : `req-${randomUUID()}`,
      method,
      path,
      query: {},
      headers: input.headers,
      peerAddress: input.clientAddress,
      trustProxy: this.trustProxy,
      route: lookup.entry?.route,
      params: {},
      watchDisconnect: input.watchDisconnect ?? (input.signal ? watchSignal(input.signal) : undefined),
      readBody: (): Promise<unknown> => (BODY_METHODS.has(method) ? this.readBodyOf(input, context) : Promise.resolve(undefined)),
      readRawBody: () =>
        BODY_METHODS.has(method)
          ? readRawRequestBody(input.body, {
              limit: this.config.bodyParser.limit,
              contentLength: firstHeader(input.headers["content-length"]),
            })
          : Promise.resolve(undefined),
    });
    context.response.headers["x-request-id"] = context.requestId;
    if (this.streamRedactor) setGlobalStreamRedactor(context, this.streamRedactor);
    if (this.events.listenerCount("request") > 0) {
      this.emitSafe("request", { requestId: context.requestId, method, path, timestamp: Date.now() });
    }
    return { context, target, entry: lookup.entry, allowed: lookup.allowed, lookupError, httpVersion: input.httpVersion };
  }

  /** The parsed body; from the raw bytes when something (a proxy route) already read them. */
  private readBodyOf(input: IncomingRequest, context: RequestContext): Promise<unknown> {
    const options = {
      limit: this.config.bodyParser.limit,
      maxDepth: this.config.bodyParser.maxDepth,
      contentType: firstHeader(input.headers["content-type"]),
      contentLength: firstHeader(input.headers["content-length"]),
    };
    if (input.body.kind !== "stream") return readRequestBody(input.body, options);
    return context.readRawBody().then((bytes) => parseRawBody(bytes, options));
  }

  /** Runs the request; every failure becomes the error envelope on `context.response`. */
  private async process({ context, target, entry, allowed, lookupError, httpVersion }: Prepared): Promise<void> {
    try {
      if (lookupError !== undefined) throw malformedEscapeAsRequestError(lookupError);
      if (!target)
        throw new ServerValidationError("Malformed request target", [{ field: "url", message: "expected /path, an absolute URL or *" }]);
      if (target.path === "*" && context.method !== "OPTIONS")
        throw new ServerValidationError("Only OPTIONS may target *", [{ field: "url", message: "asterisk-form is for OPTIONS" }]);
      if (httpVersion === "1.1" && context.headers.host === undefined)
        throw new ServerValidationError("Host header required", [{ field: "host", message: "HTTP/1.1 requests need a Host header" }]);
      if (target.search !== "") context.query = parseQuery(target.search);
      if (entry && entry.pattern.paramNames.length > 0) context.params = paramsOf(entry, context.path);
      if (this.draining) {
        context.setHeader("connection", "close");
        throw serviceUnavailable();
      }
      await this.withTimeout(context, this.runPipeline(context, entry, allowed));
    } catch (error) {
      this.applyError(context, error);
    }
  }

  private respond(context: RequestContext): OutgoingResponse {
    const isEventStream = context.response.streaming && isOpenEventStream(context);
    if (isEventStream) this.openStreams++;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      try {
        if (isEventStream) this.openStreams--;
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
      } finally {
        this.release();
      }
    };
    const response = context.response;
    if (context.method === "HEAD" && !response.streaming) {
      if (response.body !== null) response.headers["content-length"] = String(Buffer.byteLength(response.body as string | Uint8Array));
      response.body = null;
    }
    const outgoing: OutgoingResponse = {
      status: response.status,
      headers: response.headers,
      body: response.body,
      streaming: response.streaming,
      done,
    };
    if (response.headers.connection === "close" && this.config.bodyParser.lingerMs > 0) outgoing.linger = this.linger;
    return outgoing;
  }

  private release(): void {
    if (--this.inFlight === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  /** The answer when building the real one failed: constants only, so it cannot fail too. */
  private lastResort(requestId: string): OutgoingResponse {
    return lastResortResponse(requestId, () => this.release());
  }

  private runPipeline(context: RequestContext, entry: TableEntry | undefined, allowed: HttpMethod[]): Promise<void> {
    const chain = this.middleware.forRequest(context.path, this.config.basePath, entry?.route.middleware);
    return MiddlewareStack.run(chain, context, () => this.runHandler(context, entry, allowed));
  }

  /**
   * The route's own work: body, validation, handler, result. What fails here that is not a
   * server error is the handler's: it leaves as `HandlerError`, so that any other raw error
   * the pipeline sees was thrown by a middleware (`MIDDLEWARE_ERROR`).
   */
  private async runHandler(context: RequestContext, entry: TableEntry | undefined, allowed: HttpMethod[]): Promise<void> {
    try {
      if (!entry) return this.answerUnrouted(context, allowed);
      const route = entry.route;
      // A middleware (e.g. validation) may already have set a normalized body.
      if (context.body === undefined && !route.rawBody) context.body = await context.readBody();
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
    } catch (error) {
      throw ServerAdapterError.isInstance(error) ? error : new HandlerError("Internal server error", { cause: error });
    }
  }

  private answerUnrouted(context: RequestContext, allowed: HttpMethod[]): void {
    if (context.path === "*") {
      context.setHeader("allow", SERVER_METHODS);
      context.response.status = 204;
      context.response.body = null;
      return;
    }
    if (allowed.length > 0) context.setHeader("allow", [...new Set([...allowed, "OPTIONS"])].join(", "));
    if (context.method === "OPTIONS" && allowed.length > 0) {
      context.response.status = 204;
      context.response.body = null;
      return;
    }
    throw new RouteNotFoundError(context.method, context.path, allowed.length > 0 ? { details: { allowed } } : {});
  }

  private applyResult(context: RequestContext, result: unknown, route: RegisteredRoute): void {
    const response = context.response;
    if (applyRawResult(response, result)) return;
    if (isAsyncIterable(result)) {
      applyEventStream(context, result, {
        keepAliveMs: this.config.streaming.keepAliveMs,
        redactor: this.streamRedactor,
        logger: this.logger,
        onError: (error) =>
          reportServerError(
            this,
            context,
            ServerAdapterError.isInstance(error) ? error : new StreamingError("Stream processing failed", { cause: error }),
            error,
          ),
        shutdownSignal: this.streamShutdown.signal,
      });
      return;
    }
    // Serialized first: a result that cannot be (circular, BigInt, a throwing getter) leaves the response untouched.
    const extra = context.state[ENVELOPE_METADATA_STATE] as Record<string, unknown> | undefined;
    const body = successEnvelopeJson(result, context.requestId, context.startTime, extra);
    response.status = route.successStatus ?? 200;
    response.headers["content-type"] = "application/json; charset=utf-8";
    response.body = body;
  }

  /**
   * Turns any failure into the error envelope, keeping headers middleware already set
   * (security, CORS, request id). It cannot throw.
   */
  applyError(context: RequestContext, thrown: unknown): void {
    applyErrorResponse(this, context, thrown);
  }

  /** Bounds everything before the response starts; a stream's body is not bounded. */
  private withTimeout(context: RequestContext, work: Promise<void>): Promise<void> {
    const timeout = context.route?.timeoutMs ?? this.config.timeout;
    const deadlines = timeout === this.config.timeout ? this.deadlines : this.deadlinesFor(timeout);
    // One promise settled by whichever comes first (cheaper per request than race + finally).
    return new Promise<void>((resolve, reject) => {
      const deadline = deadlines.add(context.startTime, () => {
        const error = new TimeoutError(`Request timed out after ${timeout} ms`);
        context.abortController.abort(error);
        reject(error);
      });
      work.then(
        () => {
          deadlines.remove(deadline);
          resolve();
        },
        (error: unknown) => {
          deadlines.remove(deadline);
          reject(error);
        },
      );
    });
  }

  /** One queue per distinct route timeout: each keeps its deadlines in start order. */
  private deadlinesFor(timeout: number): DeadlineQueue {
    let queue = this.routeDeadlines.get(timeout);
    if (!queue) {
      queue = new DeadlineQueue(timeout);
      this.routeDeadlines.set(timeout, queue);
    }
    return queue;
  }

  /** An `error` event without a listener must never throw (EventEmitter's default). */
  emitSafe(event: string, payload: unknown): void {
    if (event === "error" && this.events.listenerCount("error") === 0) return;
    try {
      this.events.emit(event, payload);
    } catch (error) {
      logSafely(this.logger, "error", { err: error, event }, "event listener threw");
    }
  }
}

export { ServerAdapterError };
