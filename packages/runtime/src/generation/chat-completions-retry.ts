/**
 * Opening one Chat Completions call with the AI SDK's retry rules (which answers are retried,
 * how long to wait, when `Retry-After` is honoured), so it retries as the AI SDK engine does.
 * Kept apart from the engine: retries end before the first byte of the stream is read.
 */
import type { IncomingMessage } from "node:http";
import { APICallError } from "ai";
import type { ChatCompletionsEndpoint } from "../providers/chat-completions-endpoint.js";
import { retryAfterMs } from "../providers/provider-error.js";
import type { CallGuard } from "./call-guard.js";
import type { GenerationPlan } from "./generation-part.js";

/** The AI SDK's retry schedule: 2 s, 4 s, … unless the server says when (up to a minute). */
const INITIAL_RETRY_DELAY_MS = 2_000;
const MAX_HONORED_RETRY_AFTER_MS = 60_000;

function isRetryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  // No answer at all (refused, reset before the status line): the AI SDK retries those too.
  return error instanceof Error && error.name !== "AbortError" && error.name !== "TimeoutError";
}

/** A refusal of the key rather than the request (rate limited, revoked): another key of a pool may succeed. */
function isKeyRefusal(error: unknown): boolean {
  return APICallError.isInstance(error) && (error.statusCode === 429 || error.statusCode === 401 || error.statusCode === 403);
}

function retryDelay(error: unknown, attempt: number): number {
  const exponential = INITIAL_RETRY_DELAY_MS * 2 ** attempt;
  const told = APICallError.isInstance(error) ? retryAfterMs(error.responseHeaders) : undefined;
  return told !== undefined && (told < MAX_HONORED_RETRY_AFTER_MS || told < exponential) ? told : exponential;
}

/** Sends the call, retrying refused or retryable answers (`maxRetries`) before any byte of the stream. */
export async function openStream(
  endpoint: ChatCompletionsEndpoint,
  body: Record<string, unknown>,
  plan: GenerationPlan,
  guard: CallGuard,
  url?: URL,
): Promise<IncomingMessage> {
  // A pool's refused key is swapped for another at once, not counted as a retry.
  let keysLeft = (endpoint.keys?.keys ?? 1) - 1;
  for (let attempt = 0; ; attempt++) {
    guard.check();
    const lease = await endpoint.keys?.pick(plan.context.signal);
    const { request, response } = endpoint.post(body, plan.context.traceSpan?.traceHeaders(), lease, url);
    guard.attach(request);
    try {
      return await response;
    } catch (error) {
      if (keysLeft > 0 && isKeyRefusal(error)) {
        keysLeft--;
        attempt--;
        continue;
      }
      if (attempt >= plan.maxRetries || !isRetryable(error)) throw error;
      await guard.sleep(retryDelay(error, attempt));
    }
  }
}
