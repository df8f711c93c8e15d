import { type RawResponse, ServerAdapterError, rawResponse } from "@conduit-ai/server-core";
import { type RouteTarget, isFallbackStatus } from "./model-table.js";

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

/**
 * Tries `targets` in order: the first answer that is not a 429 or 5xx (returned or thrown) is
 * the client's, named in `x-conduit-model`. A stream's answer is returned before its first body
 * byte is sent, so a fallback never follows bytes the client already has. The last target's
 * failure stands as it is; a client that left stops the loop.
 *
 * @example
 * return serveWithFallbacks(table.targetsFor(request.model), ctx.abortSignal, (target, hasFallback) => serveOne(target, hasFallback));
 */
export async function serveWithFallbacks(
  targets: readonly RouteTarget[],
  signal: AbortSignal,
  serve: (target: RouteTarget, hasFallback: boolean) => Promise<Served>,
): Promise<RawResponse> {
  for (const [index, target] of targets.entries()) {
    const last = index === targets.length - 1;
    let served: Served;
    try {
      served = await serve(target, !last);
    } catch (error) {
      const status = failureStatusOf(error);
      if (last || signal.aborted || status === undefined || !isFallbackStatus(status)) throw error;
      continue;
    }
    if (!last && !signal.aborted && isFallbackStatus(served.response.status)) {
      await discard(served.response.body);
      continue;
    }
    return namedAnswer(served.response, served.servedBy);
  }
  throw new Error("serveWithFallbacks needs at least one target");
}

/** An answer not sent on: a stream's upstream request is ended. */
async function discard(body: RawResponse["body"]): Promise<void> {
  const iterate = (body as { [Symbol.asyncIterator]?: () => AsyncIterator<unknown> } | null)?.[Symbol.asyncIterator];
  if (typeof iterate === "function") await iterate.call(body).return?.();
}
