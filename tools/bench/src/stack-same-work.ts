/**
 * Each framework with its own ecosystem's middleware configured to do exactly Conduit's work
 * (`same-work`): the response headers Conduit sends (same names), one `request completed`
 * line per request with Conduit's fields through Conduit's buffered destination, never a
 * header in a log line, and the rate limit counted on Conduit's own store objects
 * (memory or Redis) through each limiter's store interface (stack-same-work-parts.ts).
 *
 * - hono: hono/request-id, hono/secure-headers, hono-pino, hono/cors, hono-rate-limiter
 * - express: pino-http, response-time, helmet, cors, express-rate-limit
 * - fastify: its pino logger (a `LogController` writing the one line), @fastify/helmet,
 *   @fastify/cors, @fastify/rate-limit
 * - koa: koa-pino-logger, koa-helmet, @koa/cors
 *
 * A few lines of glue where an ecosystem has no piece for a header: X-Response-Time and
 * Server-Timing (hono, fastify, koa), X-RateLimit-* (hono-rate-limiter sends only the draft
 * `RateLimit-*` names), koa's limiter (koa-ratelimit takes no custom store) and the removal
 * of the `Vary: Origin` @koa/cors always adds (Conduit sends none with origin `*`).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createNodeServer } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import { RATE_LIMIT, UNAUTHORIZED, WINDOW_MS, envelope, validKey } from "./stack-ecosystem.js";
import {
  EXPOSED_HEADERS,
  HELMET_OPTIONS,
  HONO_SECURE_HEADERS,
  REQUEST_COMPLETED,
  conduitStore,
  fastifyStoreClass,
  hit,
  incrementStore,
  rateLimitHeaders,
  requestIdFrom,
  requestLine,
  sameWorkDestination,
  sameWorkLogger,
} from "./stack-same-work-parts.js";

/** Conduit's two timing headers from one duration (ms). */
const timingHeaders = (durationMs: number): Record<string, string> => {
  const duration = durationMs.toFixed(2);
  return { "x-response-time": `${duration}ms`, "server-timing": `total;dur=${duration}` };
};

/** pino-http (express) and koa-pino-logger (koa) writing Conduit's line and nothing else. */
function pinoHttpOptions() {
  type Loggable = { responseTime: number };
  const line = (request: IncomingMessage & { originalUrl?: string }, response: ServerResponse, loggable: Loggable) =>
    requestLine(
      request.method,
      request.originalUrl ?? request.url,
      request.socket.remoteAddress,
      response.statusCode,
      loggable.responseTime,
    );
  return {
    logger: sameWorkLogger(),
    genReqId: (request: IncomingMessage, response: ServerResponse) => {
      const id = requestIdFrom(request.headers["x-request-id"]);
      response.setHeader("x-request-id", id);
      return id;
    },
    // The line's bindings are the request id alone; the request is never serialized.
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: "requestId" },
    wrapSerializers: false,
    serializers: { req: () => undefined },
    customLogLevel: (_request: IncomingMessage, response: ServerResponse, error?: Error) =>
      error !== undefined || response.statusCode >= 500 ? ("warn" as const) : ("info" as const),
    customSuccessObject: line,
    customErrorObject: (request: IncomingMessage, response: ServerResponse, _error: Error, loggable: Loggable) =>
      line(request, response, loggable),
    customSuccessMessage: () => REQUEST_COMPLETED,
    customErrorMessage: () => REQUEST_COMPLETED,
  };
}

async function honoStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { Hono } = await import("hono");
  const { cors } = await import("hono/cors");
  const { secureHeaders } = await import("hono/secure-headers");
  const { requestId } = await import("hono/request-id");
  const { pinoLogger } = await import("hono-pino");
  const { rateLimiter } = await import("hono-rate-limiter");
  const { createAdaptorServer } = await import("@hono/node-server");
  const { getConnInfo } = await import("@hono/node-server/conninfo");
  type Info = { used: number; resetTime?: Date };
  const app = new Hono<{ Variables: { requestId: string; started: number; rateLimit: Info } }>();
  // hono/request-id keeps a client's id of its own safe alphabet; a new one is Conduit's `req-<uuid>`.
  app.use(requestId({ generator: () => requestIdFrom(undefined) }));
  app.use(async (c, next) => {
    const started = performance.now();
    c.set("started", started);
    await next();
    for (const [name, value] of Object.entries(timingHeaders(performance.now() - started))) c.header(name, value);
  });
  app.use(secureHeaders(HONO_SECURE_HEADERS));
  app.use(
    pinoLogger({
      pino: sameWorkLogger(),
      http: {
        // No variable of that name: the id goes into the line under Conduit's name instead of `reqId`.
        referRequestIdKey: "-",
        reqId: false,
        responseTime: false,
        onReqBindings: () => ({}),
        onResBindings: (c) => ({
          requestId: c.var.requestId,
          ...requestLine(
            c.req.method,
            c.req.url.slice(c.req.url.indexOf("/", 8)),
            getConnInfo(c).remote.address,
            c.res.status,
            performance.now() - c.var.started,
          ),
        }),
        onResLevel: (c) => (c.res.status >= 500 ? "warn" : "info"),
        onResMessage: () => REQUEST_COMPLETED,
      },
    }),
  );
  app.use(cors({ origin: "*", exposeHeaders: EXPOSED_HEADERS }));
  app.use(
    rateLimiter({
      windowMs: WINDOW_MS,
      limit: RATE_LIMIT,
      standardHeaders: false,
      keyGenerator: (c) => getConnInfo(c).remote.address ?? "unknown",
      store: incrementStore(conduitStore(redis, prefix)),
    }),
  );
  // hono-rate-limiter sends only the draft `RateLimit-*` names: Conduit's `X-RateLimit-*` from its count.
  app.use(async (c, next) => {
    const info = c.var.rateLimit;
    const reset = info.resetTime === undefined ? WINDOW_MS : info.resetTime.getTime() - Date.now();
    for (const [name, value] of Object.entries(rateLimitHeaders(info.used, reset))) c.header(name, value);
    if (!validKey(c.req.header("x-api-key"))) return c.body(UNAUTHORIZED, 401, { "content-type": "application/json" });
    await next();
  });
  app.get("/api/items", (c) => {
    const started = performance.now();
    return c.body(envelope(c.var.requestId, started), 200, { "content-type": "application/json; charset=utf-8" });
  });
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

async function expressStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { default: express } = await import("express");
  const { default: cors } = await import("cors");
  const { default: helmet } = await import("helmet");
  const { rateLimit } = await import("express-rate-limit");
  const { pinoHttp } = await import("pino-http");
  const { default: responseTime } = await import("response-time");
  const app = express();
  // Conduit sends neither.
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(
    responseTime((_request: IncomingMessage, response: ServerResponse, time: number) => {
      for (const [name, value] of Object.entries(timingHeaders(time))) response.setHeader(name, value);
    }),
  );
  app.use(pinoHttp(pinoHttpOptions()));
  app.use(helmet(HELMET_OPTIONS));
  app.use(cors({ exposedHeaders: EXPOSED_HEADERS }));
  app.use(
    rateLimit({
      windowMs: WINDOW_MS,
      limit: RATE_LIMIT,
      standardHeaders: false,
      legacyHeaders: true,
      // Its configuration checks (a warning per misuse); Conduit checks its configuration once, at start.
      validate: false,
      store: incrementStore(conduitStore(redis, prefix)),
    }),
  );
  app.use((request, response, next) => {
    if (!validKey(request.get("x-api-key"))) {
      response.status(401).type("application/json").send(UNAUTHORIZED);
      return;
    }
    next();
  });
  app.get("/api/items", (request, response) => {
    response.type("application/json").send(envelope(String(request.id), performance.now()));
  });
  return createNodeServer(app);
}

async function fastifyStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { default: Fastify, LogController } = await import("fastify");
  const { default: cors } = await import("@fastify/cors");
  const { default: helmet } = await import("@fastify/helmet");
  const { default: rateLimit } = await import("@fastify/rate-limit");
  /** Fastify's own per-request logging, turned into Conduit's one line (its default writes two). */
  class OneLinePerRequest extends LogController {
    override incomingRequest(): void {}
    override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
      const line = requestLine(request.method, request.url, request.ip, reply.statusCode, reply.elapsedTime);
      if (reply.statusCode >= 500) request.log.warn(line, REQUEST_COMPLETED);
      else request.log.info(line, REQUEST_COMPLETED);
    }
  }
  let server: Server | undefined;
  const app = Fastify({
    logger: { level: "info", base: null, stream: sameWorkDestination() },
    logController: new OneLinePerRequest({ requestIdLogLabel: "requestId" }),
    requestIdHeader: false,
    genReqId: (request) => requestIdFrom(request.headers["x-request-id"]),
    serverFactory: (handler) => (server = createNodeServer(handler)),
  });
  await app.register(helmet, HELMET_OPTIONS);
  await app.register(cors, { origin: "*", exposedHeaders: EXPOSED_HEADERS });
  await app.register(rateLimit, { max: RATE_LIMIT, timeWindow: WINDOW_MS, store: fastifyStoreClass(conduitStore(redis, prefix)) });
  app.addHook("onRequest", async (request, reply) => {
    if (!validKey(request.headers["x-api-key"])) return reply.code(401).type("application/json").send(UNAUTHORIZED);
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.headers(timingHeaders(reply.elapsedTime));
  });
  app.get("/api/items", (request, reply) => {
    reply.type("application/json; charset=utf-8").send(envelope(request.id, performance.now()));
  });
  await app.ready();
  return server as Server;
}

async function koaStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { default: Koa } = await import("koa");
  const { default: Router } = await import("@koa/router");
  const { default: cors } = await import("@koa/cors");
  const { default: helmet } = await import("koa-helmet");
  const { default: koaPino } = await import("koa-pino-logger");
  const store = conduitStore(redis, prefix);
  const app = new Koa();
  const router = new Router();
  app.use(async (ctx, next) => {
    const started = performance.now();
    await next();
    ctx.set(timingHeaders(performance.now() - started));
  });
  app.use(koaPino(pinoHttpOptions()));
  app.use(helmet(HELMET_OPTIONS));
  app.use(cors({ origin: "*", exposeHeaders: EXPOSED_HEADERS }));
  app.use(async (ctx, next) => {
    ctx.remove("vary");
    const result = await hit(store, ctx.ip);
    ctx.set(rateLimitHeaders(result.count, result.resetMs));
    if (!result.allowed) {
      ctx.status = 429;
      return;
    }
    if (!validKey(ctx.get("x-api-key"))) {
      ctx.status = 401;
      ctx.type = "application/json";
      ctx.body = UNAUTHORIZED;
      return;
    }
    await next();
  });
  router.get("/api/items", (ctx) => {
    ctx.type = "application/json";
    ctx.body = envelope(String((ctx.req as IncomingMessage & { id?: string }).id), performance.now());
  });
  app.use(router.routes());
  return createNodeServer(app.callback());
}

/** The framework with its ecosystem's stack configured to Conduit's work, not listening yet. */
export function sameWorkServer(framework: string, redis: Redis | undefined, prefix: string): Promise<Server> {
  switch (framework) {
    case "hono":
      return honoStack(redis, prefix);
    case "express":
      return expressStack(redis, prefix);
    case "fastify":
      return fastifyStack(redis, prefix);
    case "koa":
      return koaStack(redis, prefix);
    default:
      throw new Error(`unknown framework ${framework}`);
  }
}
