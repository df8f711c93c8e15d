import { GuardrailViolation } from "@conduit-ai/guardrails";
import type { CallGuard } from "../../admission/call-guard.js";

/** Which surface a call came by, as a webhook is told. */
export type GuardedSurface = "anthropic" | "openai-chat" | "openai-responses" | "openai-embeddings" | "codex";

/**
 * Checks a parsed request's texts before anything goes upstream: a block throws
 * `GuardrailViolation` (the surface's 400), a mask rewrites `body` in place. True when a text
 * was masked.
 *
 * @example
 * await guardRequest(admitted?.guard, request, { surface: "openai-chat", model: request.model });
 */
export async function guardRequest(
  guard: CallGuard | undefined,
  body: unknown,
  call: { surface: GuardedSurface; model?: string | undefined },
): Promise<boolean> {
  if (!guard?.set.checks("request")) return false;
  const outcome = await guard.set.checkJson("request", body, {
    ...guard.context,
    surface: call.surface,
    ...(call.model !== undefined ? { model: call.model } : {}),
  });
  guard.record(outcome.hits);
  if (outcome.block) throw new GuardrailViolation(outcome.block);
  return outcome.changed;
}

/**
 * A body that goes upstream as bytes (`/v1/messages`, codex): untouched unless a request
 * guardrail applies; then parsed, checked, and re-serialized only when a text was masked
 * (otherwise the client's bytes go on).
 */
export async function guardRawBody(
  guard: CallGuard | undefined,
  body: Uint8Array,
  call: { surface: GuardedSurface; model?: string | undefined },
): Promise<Uint8Array> {
  if (!guard?.set.checks("request")) return body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  } catch {
    // Not JSON: upstream answers it with its own 400; nothing in it can be read as text here.
    return body;
  }
  const changed = await guardRequest(guard, parsed, call);
  return changed ? new TextEncoder().encode(JSON.stringify(parsed)) : body;
}

/** `/v1/messages`: the body as bytes (see `guardRawBody`). */
export function guardMessagesBody(guard: CallGuard | undefined, body: Uint8Array, model: string | undefined): Promise<Uint8Array> {
  return guardRawBody(guard, body, { surface: "anthropic", model });
}
