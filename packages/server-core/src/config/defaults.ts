import type { RequiredServerAdapterConfig } from "../contracts/config.js";

/** The spec's defaults table. `resolveConfig` deep-merges a user config over this. */
export const DEFAULT_SERVER_CONFIG: RequiredServerAdapterConfig = Object.freeze({
  port: 3000,
  host: "0.0.0.0",
  basePath: "/api",
  cors: {
    enabled: true,
    origins: "*",
    methods: ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"],
    // Undefined: a preflight's Access-Control-Request-Headers are reflected (as cors, @fastify/cors and hono/cors do).
    allowedHeaders: undefined,
    exposedHeaders: ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"],
    credentials: false,
    maxAge: 86_400,
  },
  rateLimit: {
    enabled: true,
    maxRequests: 100,
    windowMs: 15 * 60 * 1000,
    message: "Too many requests, please try again later",
    skipPaths: ["/health", "/ready"],
    trustProxy: false,
    failOpen: false,
  },
  bodyParser: { enabled: true, limit: 10 * 1024 * 1024, maxDepth: 64, lingerMs: 5_000, lingerLimit: 64 * 1024 * 1024 },
  logging: { enabled: true, level: "info", skipPaths: ["/health", "/ready", "/metrics"], queryValues: "redact" },
  timeout: 30_000,
  enableMetrics: true,
  // Neither public nor a token: only an admin reads /api/metrics until the operator says otherwise.
  metrics: { public: false },
  enableSwagger: false,
  disableBuiltInHealth: false,
  redaction: {
    enabled: false,
    additionalFields: [],
    preserveFields: [],
    redactToolArgs: true,
    redactToolResults: true,
    placeholder: "[REDACTED]",
  },
  shutdown: { gracefulShutdownTimeoutMs: 30_000, drainTimeoutMs: 15_000, forceClose: true },
  streaming: { keepAliveMs: 15_000 },
  trustProxy: false,
  health: { processDetails: "authenticated" },
}) as RequiredServerAdapterConfig;
