import { performance } from "../core/pipeline/clock.js";
import type { ResponseBody, ServerContext } from "../contracts/context.js";
import type { MiddlewareDefinition } from "../contracts/middleware.js";
import { middlewareFromHooks } from "../core/pipeline/middleware-hooks.js";
import { isAsyncIterable } from "../core/pipeline/raw-response.js";
import { wrapError } from "../errors/wrap-error.js";
import type { ServerMetrics } from "./server-metrics.js";

/** Runs first, so it sees every request: 404s, errors, short-circuits of other middleware. */
export const METRICS_MIDDLEWARE_ORDER = -100;

/** Yields the stream unchanged and reports once it ended, failed or the client left. */
async function* observeStream(body: AsyncIterable<Uint8Array | string>, onEnd: () => void): AsyncGenerator<Uint8Array | string> {
  try {
    yield* body;
  } finally {
    onEnd();
  }
}

/**
 * Counts every request by method, route template and status, and times it; a stream is
 * timed until its last chunk and counted in `conduit_active_streams` meanwhile.
 *
 * @example
 * adapter.registerMiddleware(createMetricsMiddleware(new ServerMetrics(adapter)));
 */
export function createMetricsMiddleware(metrics: ServerMetrics): MiddlewareDefinition {
  const observe = (ctx: ServerContext, status: number) =>
    metrics.observeRequest(ctx.method, ctx.route?.fullPath ?? "unmatched", status, (performance.now() - ctx.startTime) / 1000);
  return middlewareFromHooks(
    { name: "metrics", order: METRICS_MIDDLEWARE_ORDER },
    {
      after: (ctx) => {
        const response = ctx.response;
        const body: ResponseBody = response.body;
        if (response.streaming && isAsyncIterable(body)) {
          const status = response.status;
          metrics.activeStreams.inc();
          let ended = false;
          response.body = observeStream(body as AsyncIterable<Uint8Array | string>, () => {
            if (ended) return;
            ended = true;
            metrics.activeStreams.dec();
            observe(ctx, status);
          });
          return;
        }
        observe(ctx, response.status);
      },
      failed: (ctx, error) => {
        // The core shapes the error after the pipeline; its status is the error's.
        observe(ctx, wrapError(error).statusCode);
        throw error;
      },
    },
  );
}
