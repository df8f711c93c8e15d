import { type GateSurface, MAX_OUTPUT_TOKENS_LIMIT, ServerValidationError, outputLimitOf } from "@conduit-ai/server-core";
import { estimateTokens } from "@conduit-ai/server-core/internal";
import type { AdmissionRequest } from "./client-admission.js";
import { duplicateTopLevelKey } from "./duplicate-keys.js";

/** The output caps the vendors' request bodies name, in the order they are read. */
export const OUTPUT_CAP_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"] as const;

/** A body problem the gate must not count past: the field and what is wrong with it. */
export interface BodyProblem {
  field: string;
  message: string;
}

/**
 * What a gated body may not carry: a top-level key twice (checked on one value, served on the
 * other), or an output cap above the model's documented limit (`outputLimitOf`) or 10^7 (no model
 * answers that much; the budget counters could not hold its reservation). Undefined when the body is fine.
 *
 * @example
 * gatedBodyProblem('{"max_tokens":1e12}', { max_tokens: 1e12 }); // { field: "max_tokens", ... }
 */
export function gatedBodyProblem(text: string, fields: Record<string, unknown>): BodyProblem | undefined {
  const repeated = duplicateTopLevelKey(text);
  if (repeated !== undefined)
    return { field: repeated, message: `The JSON body names "${repeated}" more than once: send each top-level field once` };
  // A routing name has no limit of its own: its targets' upstreams answer for theirs.
  const modelLimit = typeof fields.model === "string" ? outputLimitOf(fields.model) : undefined;
  for (const field of OUTPUT_CAP_FIELDS) {
    const value = fields[field];
    if (typeof value !== "number") continue;
    if (value > MAX_OUTPUT_TOKENS_LIMIT) return { field, message: `${field}: must be at most ${MAX_OUTPUT_TOKENS_LIMIT} (got ${value})` };
    if (modelLimit !== undefined && value > modelLimit)
      return { field, message: `${field}: ${String(fields.model)} answers at most ${modelLimit} output tokens (got ${value})` };
  }
  return undefined;
}

/**
 * What a gate needs of a request body: the model, an input-token estimate (bytes ÷ 4) and the
 * output cap (`max_tokens`, `max_completion_tokens` or `max_output_tokens`). A body that is not
 * JSON gives only the estimate: the surface answers it as the vendor would. A body the gate must
 * not count (`gatedBodyProblem`) is a 400 naming the field, in the surface's shape.
 *
 * @example
 * admission.admit(ctx, admissionRequestOf("anthropic", bodyBytes));
 */
export function admissionRequestOf(surface: GateSurface, body: Uint8Array | string): AdmissionRequest {
  const text = typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  let fields: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the model is unknown.
  }
  const problem = gatedBodyProblem(text, fields);
  if (problem) throw new ServerValidationError(problem.message, [{ field: problem.field, message: problem.message }]);
  return estimateOf(surface, Buffer.byteLength(text), fields);
}

/**
 * The admission request of a body already parsed (`fields`) of `byteLength` bytes: the model,
 * the input estimate and the first positive integer output cap.
 *
 * @example
 * estimateOf("openai", Buffer.byteLength(text), body);
 */
export function estimateOf(surface: GateSurface, byteLength: number, fields: Record<string, unknown>): AdmissionRequest {
  const cap = OUTPUT_CAP_FIELDS.map((field) => fields[field]).find(
    (value): value is number => typeof value === "number" && Number.isInteger(value) && value > 0,
  );
  return {
    surface,
    estimatedInputTokens: estimateTokens(byteLength),
    ...(typeof fields.model === "string" ? { model: fields.model } : {}),
    ...(cap !== undefined ? { maxOutputTokens: cap } : {}),
  };
}
