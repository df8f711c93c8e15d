import { ServerAdapterError } from "@conduit-ai/server-core";
import type { GuardrailHit } from "./match-rules.js";

const MARKER = Symbol.for("conduit.guardrails.violation");

/** The client-facing sentence: the guardrail and what it found, never the text that matched. */
export function violationMessage(hit: GuardrailHit & { reason?: string }): string {
  const side = hit.direction === "request" ? "request" : "response";
  if (hit.entity === "not-configured")
    return `The guardrail \`${hit.guardrail}\` named for this key or team is not configured; the ${side} was blocked.`;
  if (hit.entity === "webhook-unavailable") return `Blocked by guardrail \`${hit.guardrail}\`: its moderation webhook did not answer.`;
  const found = hit.kind === "webhook" ? (hit.reason ? `: ${hit.reason}` : "") : ` (${hit.entity})`;
  return `Blocked by guardrail \`${hit.guardrail}\`${found}: the ${side === "request" ? "request was not sent" : "response was stopped"}.`;
}

/**
 * A request a guardrail blocked: 400 `guardrail_violation`, written in the surface's own shape
 * (Anthropic's `error.type`, OpenAI's `error.code`).
 *
 * @example
 * if (outcome.block) throw new GuardrailViolation(outcome.block);
 */
export class GuardrailViolation extends ServerAdapterError {
  readonly hit: GuardrailHit;
  readonly [MARKER] = true;

  constructor(hit: GuardrailHit & { reason?: string }) {
    super(violationMessage(hit), { statusCode: 400, code: "guardrail_violation" });
    this.name = "GuardrailViolation";
    this.hit = hit;
  }

  static isViolation(value: unknown): value is GuardrailViolation {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
