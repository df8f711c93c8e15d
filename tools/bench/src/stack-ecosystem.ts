/**
 * Each framework with its own ecosystem's answer to Conduit's stack, as its users would wire
 * it (defaults kept; stack-same-work.ts configures the same pieces to do Conduit's work): API-key auth, rate limiting (memory or Redis store, ceiling raised),
 * one pino request log line per request (Fastify: its built-in logger, two lines), CORS,
 * security headers, request id and timing.
 *
 * - hono: hono/cors, hono/secure-headers, hono/request-id, hono/timing, hono-pino, hono-rate-limiter
 * - express: cors, helmet, express-rate-limit (+ rate-limit-redis), pino-http, response-time
 * - fastify: @fastify/cors, @fastify/helmet, @fastify/rate-limit (its Redis option), its pino logger
 * - koa: @koa/cors, koa-helmet, koa-ratelimit (memory / Redis driver), koa-pino-logger, koa-response-time
 *
 * The API-key check is the same few lines on every side (no framework ships one): SHA-256
 * digests (one-shot `crypto.hash`) compared with `timingSafeEqual`, as Conduit's `ApiKeyStore` does.
 */
import { createHash, hash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createNodeServer } from "node:http";
import type { Redis } from "ioredis";
import { pino } from "pino";

export const API_KEY = "bench-api-key-0123456789";
export const RATE_LIMIT = 1_000_000_000;
/** One minute: koa-ratelimit's Redis driver keeps one sorted-set entry per request for a whole window. */
export const WINDOW_MS = 60 * 1000;
export const ITEMS = [
  { id: "a1", name: "first", price: 12.5 },
  { id: "b2", name: "second", price: 7 },
  { id: "c3", name: "third", price: 99.99 },
];

const expectedDigest = createHash("sha256").update(API_KEY).digest();
/** True when the presented key is the bench's key (constant time). */
export function validKey(presented: unknown): boolean {
  if (typeof presented !== "string" || presented === "") return false;
  return timingSafeEqual(hash("sha256", presented, "buffer") as unknown as Buffer, expectedDigest);
}

/** The same envelope Conduit answers with, so both sides send the same bytes. */
export function envelope(requestId: string, started: number): string {
  return JSON.stringify({
    data: { items: ITEMS },
    metadata: { requestId, timestamp: new Date().toISOString(), duration: Math.round((performance.now() - started) * 100) / 100 },
  });
}

export const UNAUTHORIZED = JSON.stringify({ error: { code: "AUTH_REQUIRED", message: "Authentication required" } });

/** pino's own default destination (stdout, which the bench sends to /dev/null): one write per line unless lines pile up. */
const destination = () => pino.destination(1);
const logger = () => pino(destination());

/** The request id rule pino-http documents: a client's `x-request-id`, else a fresh UUID echoed back. */
function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const incoming = request.headers["x-request-id"];
  const id = typeof incoming === "string" && incoming !== "" ? incoming : randomUUID();
  response.setHeader("x-request-id", id);
  return id;
}

/** ioredis as hono-rate-limiter's `RedisStore` wants a client (the shape of @upstash/redis). */
function honoRedisClient(redis: Redis) {
  return {
    scriptLoad: (script: string) => redis.script("LOAD", script) as Promise<string>,
    evalsha: <TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs) =>
      redis.evalsha(sha, keys.length, ...keys, ...(args as Array<string | number>)) as Promise<TData>,
    decr: (key: string) => redis.decr(key),
    del: (key: string) => redis.del(key),
  };
}

async function honoStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { Hono } = await import("hono");
  const { cors } = await import("hono/cors");
  const { secureHeaders } = await import("hono/secure-headers");
  const { requestId } = await import("hono/request-id");
  const { timing } = await import("hono/timing");
  const { pinoLogger } = await import("hono-pino");
  const { rateLimiter, RedisStore } = await import("hono-rate-limiter");
  const { createAdaptorServer } = await import("@hono/node-server");
  const { getConnInfo } = await import("@hono/node-server/conninfo");
  const app = new Hono<{ Variables: { requestId: string } }>();
  app.use(requestId());
  app.use(timing());
  app.use(secureHeaders());
  app.use(pinoLogger({ pino: logger() }));
  app.use(cors());
  app.use(
    rateLimiter({
      windowMs: WINDOW_MS,
      limit: RATE_LIMIT,
      keyGenerator: (c) => getConnInfo(c).remote.address ?? "unknown",
      ...(redis ? { store: new RedisStore({ client: honoRedisClient(redis), prefix }) } : {}),
    }),
  );
  app.use(async (c, next) => {
    if (!validKey(c.req.header("x-api-key"))) return c.body(UNAUTHORIZED, 401, { "content-type": "application/json" });
    await next();
  });
  app.get("/api/items", (c) => {
    const started = performance.now();
    return c.body(envelope(c.get("requestId"), started), 200, { "content-type": "application/json; charset=utf-8" });
  });
  return createAdaptorServer({ fetch: app.fetch }) as Server;
}

async function expressStack(redis: Redis | undefined, prefix: string): Promise<Server> {
  const { default: express } = await import("express");
  const { default: cors } = await import("cors");
  const { default: helmet } = await import("helmet");
  const { rateLimit } = await import("express-rate-limit");
  const { RedisStore } = await import("rate-limit-redis");
  const { pinoHttp } = await import("pino-http");
  const { default: responseTime } = await import("response-time");
  const app = express();
  app.use(responseTime());
  app.use(pinoHttp({ logger: logger(), genReqId: requestIdFor }));
  app.use(helmet());
  app.use(cors());
  app.use(
    rateLimit({
      windowMs: WINDOW_MS,
      limit: RATE_LIMIT,
      standardHeaders: false,
      legacyHeaders: true,
      ...(redis
        ? { store: new RedisStore({ prefix, sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as never }) }
        : {}),
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
  const { default: Fastify } = await import("fastify");
  const { default: cors } = await import("@fastify/cors");
  const { default: helmet } = await import("@fastify/helmet");
  const { default: rateLimit } = await import("@fastify/rate-limit");
  let server: Server | undefined;
  const app = Fastify({
    logger: { level: "info", stream: destination() },
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    serverFactory: (handler) => (server = createNodeServer(handler)),
  });
  await app.register(helmet);
  await app.register(cors);
  await app.register(rateLimit, { max: RATE_LIMIT, timeWindow: WINDOW_MS, ...(redis ? { redis, nameSpace: prefix } : {}) });
  app.addHook("onRequest", async (request, reply) => {
    if (!validKey(request.headers["x-api-key"])) return reply.code(401).type("application/json").send(UNAUTHORIZED);
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    reply.header("x-response-time", `${reply.elapsedTime.toFixed(2)}ms`);
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
  const { default: ratelimit } = await import("koa-ratelimit");
  const { default: koaPino } = await import("koa-pino-logger");
  const { default: responseTime } = await import("koa-response-time");
  const app = new Koa();
  const router = new Router();
  app.use(responseTime());
  app.use(koaPino({ logger: logger(), genReqId: requestIdFor }));
  app.use(helmet());
  app.use(cors());
  app.use(
    ratelimit({
      driver: redis ? "redis" : "memory",
      db: redis ?? new Map(),
      duration: WINDOW_MS,
      max: RATE_LIMIT,
      id: (ctx) => `${prefix}${ctx.ip}`,
    }),
  );
  app.use(async (ctx, next) => {
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
    ctx.body = envelope(String((ctx.req as IncomingMessage & { id?: string }).id ?? ctx.response.get("x-request-id")), performance.now());
  });
  app.use(router.routes());
  return createNodeServer(app.callback());
}

/** The framework with its ecosystem's stack, not listening yet. */
export function ecosystemServer(framework: string, redis: Redis | undefined, prefix: string): Promise<Server> {
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
