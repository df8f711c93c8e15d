import type { GateSurface } from "@conduit-ai/server-core";
import type { AdmissionRequest } from "./client-admission.js";

/** Roughly four bytes of JSON per token: a reservation errs high, and settles to the real count. */
const BYTES_PER_TOKEN = 4;

interface BodyFields {
  model?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  max_output_tokens?: unknown;
}

/**
 * What a gate needs of a request body: the model, an input-token estimate (bytes ÷ 4) and the
 * output cap (`max_tokens`, `max_completion_tokens` or `max_output_tokens`). A body that is not
 * JSON gives only the estimate: the surface answers it as the vendor would.
 *
 * @example
 * admission.admit(ctx, admissionRequestOf("anthropic", bodyBytes));
 */
export function admissionRequestOf(surface: GateSurface, body: Uint8Array | string): AdmissionRequest {
  const text = typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  const estimatedInputTokens = Math.ceil(Buffer.byteLength(text) / BYTES_PER_TOKEN);
  let fields: BodyFields = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) fields = parsed as BodyFields;
  } catch {
    // Not JSON: the model is unknown.
  }
  const cap = [fields.max_tokens, fields.max_completion_tokens, fields.max_output_tokens].find(
    (value): value is number => typeof value === "number" && Number.isInteger(value) && value > 0,
  );
  return {
    surface,
    estimatedInputTokens,
    ...(typeof fields.model === "string" ? { model: fields.model } : {}),
    ...(cap !== undefined ? { maxOutputTokens: cap } : {}),
  };
}
