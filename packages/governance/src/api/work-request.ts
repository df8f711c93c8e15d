import { MAX_OUTPUT_TOKENS_LIMIT, ServerValidationError, outputLimitOf } from "@conduit-ai/server-core";
import { estimateTokens } from "@conduit-ai/server-core/internal";

/** The parts of a runtime call (generate, stream, embed) the gate counts. */
export interface WorkRequest {
  input?: { text?: unknown };
  prompt?: unknown;
  system?: unknown;
  text?: unknown;
  texts?: unknown;
  model?: unknown;
  maxTokens?: unknown;
}

/** A rough input estimate (server-core's `estimateTokens`) from the parts of a request that reach the model. */
export function estimateInputTokens(body: WorkRequest | undefined): number {
  if (!body || typeof body !== "object") return 0;
  const parts = [body.input?.text, body.prompt, body.system, body.text, ...(Array.isArray(body.texts) ? body.texts : [])];
  const characters = parts.reduce<number>((sum, part) => sum + (typeof part === "string" ? part.length : 0), 0);
  return estimateTokens(characters);
}

/**
 * The output cap of a work request (`maxTokens`): an integer from 1 to 10^7, else a 400 naming
 * the field before anything is counted; absent → the default.
 *
 * @example
 * outputCapOf({ maxTokens: 256 }, 4096); // 256
 */
export function outputCapOf(body: { maxTokens?: unknown; model?: unknown } | undefined, defaultMaxOutputTokens: number): number {
  const cap = body?.maxTokens;
  if (cap === undefined || cap === null) return defaultMaxOutputTokens;
  // The model's documented limit when the table knows it (`outputLimitOf`), else 10^7.
  const modelLimit = typeof body?.model === "string" ? outputLimitOf(body.model) : undefined;
  const limit = Math.min(modelLimit ?? MAX_OUTPUT_TOKENS_LIMIT, MAX_OUTPUT_TOKENS_LIMIT);
  if (typeof cap !== "number" || !Number.isInteger(cap) || cap < 1 || cap > limit) {
    const message = `maxTokens must be an integer from 1 to ${limit}${modelLimit !== undefined ? ` (${String(body?.model)} answers at most ${modelLimit} output tokens)` : ""}`;
    throw new ServerValidationError(message, [{ field: "maxTokens", message: `an integer from 1 to ${limit}` }]);
  }
  return cap;
}
