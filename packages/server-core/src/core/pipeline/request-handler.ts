import { performance } from "./clock.js";
import { randomUUID } from "node:crypto";
import { type EventEmitter, setMaxListeners } from "node:events";
import type { RequiredServerAdapterConfig } from "../../contracts/config.js";
import type { HttpMethod } from "../../contracts/http.js";
import type { RegisteredRoute } from "../../contracts/route.js";
import { ServerAdapterError } from "../../errors/server-adapter-error.js";
import { HandlerError, ServerValidationError, StreamingError, serviceUnavailable } from "../../errors/server-errors.js";
import { applyRouteResult } from "./apply-result.js";
import { parseQuery } from "../body/body-parser.js";
import { type PreparedRequest, prepareRequest } from "./prepare-request.js";
import { type TrustFunction, compileTrustProxy } from "../credentials/client-address.js";
import type { ErrorFormatOptions } from "../errors/envelope.js";
import { ErrorShapeTable } from "../errors/error-shapes.js";
import { applyErrorResponse, lastResortResponse, logSafely, reportServerError } from "../errors/error-responder.js";
import { type Logger, silentLogger } from "../lifecycle/logger.js";
import { MiddlewareStack } from "./middleware-stack.js";
import type { RequestContext } from "./request-context.js";
import { RequestDeadlines } from "./request-deadlines.js";
import { answerUnrouted } from "./unrouted-answer.js";
import { RouteTable, type TableEntry, malformedEscapeAsRequestError, paramsOf } from "./route-table.js";
import { type EventStreamOptions, isOpenEventStream, recordStreamAbort } from "../streams/event-stream-response.js";
import { type StreamEventTransform, createStreamRedactor, setGlobalStreamRedactor } from "../streams/stream-redaction.js";
import type { IncomingRequest, LingerOptions, OutgoingResponse } from "./request-io.js";
import { validateRequest } from "./validate-request.js";
import { endRequestSpan, startRequestSpan, tracedBody } from "./request-span.js";
import { type TraceSpan, type Tracing, getTracing } from "../../contracts/tracing.js";
import type { RateLimiter } from "../../contracts/rate-limiter.js";

export type { IncomingRequest, LingerOptions, OutgoingResponse } from "./request-io.js";

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
  /** The timeout of every request in flight (`config.timeout`, or the route's). */
  private readonly deadlines: RequestDeadlines;
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
    this.deadlines = new RequestDeadlines(config.timeout);
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
      context.traceSpan = traced;
      await tracing.runInSpan(traced, () => this.process(prepared));
      return this.respond(context, tracing, traced);
    } catch (failure) {
      span?.fail(failure);
      span?.end();
      // Only a failure no guard foresaw gets here; it still leaves as an envelope and releases the request.
      logSafely(this.logger, "error", { err: failure, requestId: context?.requestId }, "request handling failed");
      return this.lastResort(context?.requestId ?? `req-${randomUUID()}`);
    }
  }

  private prepare(input: IncomingRequest, route: RegisteredRoute | undefined): PreparedRequest {
    const prepared = prepareRequest(input, route, this.routes, this.config, this.trustProxy);
    if (this.streamRedactor) setGlobalStreamRedactor(prepared.context, this.streamRedactor);
    if (this.events.listenerCount("request") > 0) {
      const { requestId, method, path } = prepared.context;
      this.emitSafe("request", { requestId, method, path, timestamp: Date.now() });
    }
    return prepared;
  }

  /** Runs the request; every failure becomes the error envelope on `context.response`. */
  private async process({ context, target, entry, allowed, lookupError, httpVersion }: PreparedRequest): Promise<void> {
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
      await this.deadlines.within(context, this.runPipeline(context, entry, allowed));
    } catch (error) {
      this.applyError(context, error);
    }
  }

  /**
   * The outgoing answer; with a request span, its stream is pulled inside the span and `done()`
   * ends it. (`done` is built here, never wrapped afterwards: replacing the closure on the
   * answer object made V8 pretenure per-request objects, doubling GC cost — see bench:tracing.)
   */
  private respond(context: RequestContext, tracing?: Tracing, span?: TraceSpan): OutgoingResponse {
    const isEventStream = context.response.streaming && isOpenEventStream(context);
    if (isEventStream) this.openStreams++;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      try {
        if (span) endRequestSpan(span, context, outgoing.status);
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
      body: span && tracing ? tracedBody(tracing, span, response) : response.body,
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
      if (!entry) return answerUnrouted(context, allowed);
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
      applyRouteResult(context, result, route, () => this.streamOptionsFor(context));
    } catch (error) {
      throw ServerAdapterError.isInstance(error) ? error : new HandlerError("Internal server error", { cause: error });
    }
  }

  /** How this server writes a handler's event stream: keep-alive, redaction, errors, shutdown. */
  private streamOptionsFor(context: RequestContext): EventStreamOptions {
    return {
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
    };
  }

  /**
   * Turns any failure into the error envelope, keeping headers middleware already set
   * (security, CORS, request id). It cannot throw.
   */
  applyError(context: RequestContext, thrown: unknown): void {
    applyErrorResponse(this, context, thrown);
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
