import type { RequiredServerAdapterConfig } from "../contracts/config.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { Logger } from "../core/lifecycle/logger.js";
import type { RouteTable } from "../core/pipeline/route-table.js";
import { createCompressionMiddleware } from "./compression.js";
import { createCorsMiddleware } from "./cors.js";
import { createErrorHandlingMiddleware } from "./error-handling.js";
import { createLoggingMiddleware } from "./logging/logging.js";
import { type RateLimiter, createRateLimiter } from "./rate-limit/rate-limiter.js";
import { rateLimitMiddleware } from "./rate-limit/window-rate-limit.js";
import { createRequestIdMiddleware } from "./request-id.js";
import { createSecurityHeadersMiddleware } from "./security-headers.js";
import { createTimingMiddleware } from "./timing.js";

/**
 * The default stack every adapter installs (unless built with `{ defaultMiddleware: false }`):
 * request id, timing, error handling, security headers, logging (`config.logging`),
 * compression, CORS (`config.cors`) and rate limiting (`config.rateLimit`, per client
 * address, health paths skipped; its limiter is left on `target.rateLimiter` for other surfaces). With logging on, `target.logger` becomes the pino
 * logger, so the core's own lines are structured JSON too.
 *
 * @example
 * for (const middleware of createDefaultMiddleware(resolveConfig({ rateLimit: { enabled: false } }))) adapter.registerMiddleware(middleware);
 */
export function createDefaultMiddleware(
  config: RequiredServerAdapterConfig,
  target?: { logger: Logger; rateLimiter?: RateLimiter; routes?: Pick<RouteTable, "routesAt"> },
): MiddlewareDefinition[] {
  const stack: MiddlewareDefinition[] = [
    createRequestIdMiddleware(),
    createTimingMiddleware(),
    createErrorHandlingMiddleware(),
    createSecurityHeadersMiddleware(),
  ];
  if (config.logging.enabled) {
    const logging = createLoggingMiddleware({
      level: config.logging.level,
      skipPaths: config.logging.skipPaths,
      basePath: config.basePath,
      queryValues: config.logging.queryValues,
    });
    if (target) target.logger = logging.logger;
    stack.push(logging);
  }
  stack.push(createCompressionMiddleware());
  if (config.cors.enabled) {
    const routes = target?.routes;
    stack.push(createCorsMiddleware({ ...config.cors, ...(routes ? { routesAt: (path: string) => routes.routesAt(path) } : {}) }));
  }
  if (config.rateLimit.enabled) {
    // No trustProxy here: the client address comes from the server's `trustProxy` (ctx.clientAddress), as everywhere else.
    const { maxRequests, windowMs, message, skipPaths, failOpen, store } = config.rateLimit;
    // Read the logger when it warns: the logging middleware above may replace it.
    const logger = {
      warn: (object: object, text?: string) => target?.logger.warn(object, text),
      info: (object: object, text?: string) => target?.logger.info(object, text),
    };
    const limiter = createRateLimiter({ maxRequests, windowMs, message, skipPaths, failOpen, store, basePath: config.basePath, logger });
    // The adapter shares this limiter with other surfaces (WebSocket): one budget per client.
    if (target) target.rateLimiter = limiter;
    stack.push(rateLimitMiddleware("rate-limit", limiter, { skipPaths }));
  }
  return stack;
}
