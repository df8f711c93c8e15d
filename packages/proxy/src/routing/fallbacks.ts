import { type RawResponse, ServerAdapterError, rawResponse } from "@conduit-ai/server-core";
import { type RouteTarget, isFallbackStatus } from "./model-table.js";
import type { InFlightCall, RoutingStats } from "./routing-stats.js";

/** The header naming what served an answer: `anthropic/<model>` or `<provider>/<model>` of the runtime. */
export const SERVED_BY_HEADER = "x-conduit-model";

/** One target's answer and the name of what served it. */
export interface Served {
  response: RawResponse;
  servedBy: string;
}

/** The status an attempt failed with: OpenAI-shaped and server errors carry one; anything else is not retried elsewhere. */
export function failureStatusOf(error: unknown): number | undefined {
  if (ServerAdapterError.isInstance(error)) return error.statusCode;
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** `response` with the header naming what served it (set before a stream's first byte). */
export function namedAnswer(response: RawResponse, servedBy: string): RawResponse {
  return rawResponse(response.body, { status: response.status, headers: { ...response.headers, [SERVED_BY_HEADER]: servedBy } });
}

/** How one call is routed: where its figures go and how the header reaches an error answer. */
export interface FallbackOptions {
  /** In-flight counts and times to first byte, for `least-busy` and `latency` (deployment routes). */
  stats?: RoutingStats | undefined;
  /** Sets a response header on whatever the surface answers, an error included (`ctx.setHeader`). */
  setHeader?: ((name: string, value: string) => void) | undefined;
}

/**
 * The fallback options of a surface's call: the plan's figures and the request's header setter.
 *
 * @example
 * return serveWithFallbacks(plan.targets, ctx.abortSignal, serveOne, routingOf(ctx, plan));
 */
export function routingOf(
  ctx: { setHeader(name: string, value: string): void },
  plan: { stats?: RoutingStats | undefined },
): FallbackOptions {
  return { stats: plan.stats, setHeader: (name, value) => ctx.setHeader(name, value) };
}

/**
 * Tries `targets` in order: the first answer that is not a 429 or 5xx (returned or thrown) is
 * the client's, named in `x-conduit-model`. A stream's answer is returned before its first body
 * byte is sent, so a fallback never follows bytes the client already has. The last target's
 * failure stands as it is, named in `x-conduit-model` too; a client that left stops the loop.
 *
 * @example
 * return serveWithFallbacks(plan.targets, ctx.abortSignal, (target, hasFallback) => serveOne(target, hasFallback), { stats: plan.stats });
 */
export async function serveWithFallbacks(
  targets: readonly RouteTarget[],
  signal: AbortSignal,
  serve: (target: RouteTarget, hasFallback: boolean) => Promise<Served>,
  options: FallbackOptions = {},
): Promise<RawResponse> {
  const { stats } = options;
  for (const [index, target] of targets.entries()) {
    const last = index === targets.length - 1;
    // What served it, or what failed last: set before the attempt so a thrown failure carries it.
    options.setHeader?.(SERVED_BY_HEADER, target.name);
    const inFlight = stats ? await stats.start(target.name) : undefined;
    const started = stats ? performance.now() : 0;
    let served: Served;
    try {
      served = await serve(target, !last);
    } catch (error) {
      inFlight?.end();
      const status = failureStatusOf(error);
      if (last || signal.aborted || status === undefined || !isFallbackStatus(status)) throw error;
      continue;
    }
    if (!last && !signal.aborted && isFallbackStatus(served.response.status)) {
      inFlight?.end();
      await discard(served.response.body);
      continue;
    }
    if (stats && served.response.status < 400) stats.recordLatency(target.name, performance.now() - started);
    const response = inFlight ? endingWithBody(served.response, inFlight, signal) : served.response;
    return namedAnswer(response, served.servedBy);
  }
  throw new Error("serveWithFallbacks needs at least one target");
}

/** `response` whose call stops counting as in flight when its body is over (a stream's last byte, or at once). */
function endingWithBody(response: RawResponse, call: InFlightCall, signal: AbortSignal): RawResponse {
  const body = response.body as { [Symbol.asyncIterator]?: () => AsyncIterator<unknown> } | null;
  if (typeof body?.[Symbol.asyncIterator] !== "function") {
    call.end();
    return response;
  }
  const source = body as AsyncIterable<unknown>;
  // A client gone before the stream was read never runs the generator's `finally`.
  const onAbort = () => call.end();
  signal.addEventListener("abort", onAbort, { once: true });
  async function* counted() {
    try {
      yield* source;
    } finally {
      signal.removeEventListener("abort", onAbort);
      call.end();
    }
  }
  return rawResponse(counted() as RawResponse["body"], { status: response.status, headers: response.headers });
}

/** An answer not sent on: a stream's upstream request is ended. */
async function discard(body: RawResponse["body"]): Promise<void> {
  const iterate = (body as { [Symbol.asyncIterator]?: () => AsyncIterator<unknown> } | null)?.[Symbol.asyncIterator];
  if (typeof iterate === "function") await iterate.call(body).return?.();
}
