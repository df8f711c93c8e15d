import { z } from "zod";
import type { GuardrailDirection } from "./config-schema.js";

/** Who and what a call is, as a webhook and the hooks see it (never the credential). */
export interface GuardrailCallContext {
  /** The key's id (not its secret) when a gate admitted the call. */
  key?: string;
  team?: string;
  model?: string;
  /** `anthropic`, `openai-chat`, `openai-responses`, `openai-embeddings`, `api`, `mcp`. */
  surface?: string;
}

const webhookAnswerSchema = z.object({
  action: z.enum(["allow", "block", "mask"]),
  text: z.string().optional(),
  texts: z.array(z.string()).optional(),
  reason: z.string().max(500).optional(),
});

/** What a moderation webhook decided, or `unavailable` (timed out, not 2xx, not its shape). */
export type WebhookVerdict =
  | { action: "allow" }
  | { action: "block"; reason?: string }
  | { action: "mask"; texts: string[] }
  | { action: "unavailable"; why: string };

export interface WebhookCall {
  url: string;
  timeoutMs: number;
  headers?: Record<string, string>;
  direction: GuardrailDirection;
  texts: readonly string[];
  context: GuardrailCallContext;
  fetch?: typeof fetch;
}

/**
 * Asks a moderation webhook: `POST {direction, text, texts, key, team, model, surface}` →
 * `{action, text?, texts?, reason?}`. `text` is the texts joined by blank lines; a `mask` answer
 * gives `texts` (one per text sent) or, for a single text, `text`.
 */
export async function askWebhook(call: WebhookCall): Promise<WebhookVerdict> {
  const body = {
    direction: call.direction,
    text: call.texts.join("\n\n"),
    texts: call.texts,
    key: call.context.key ?? null,
    team: call.context.team ?? null,
    model: call.context.model ?? null,
    surface: call.context.surface ?? null,
  };
  let answer: unknown;
  try {
    const response = await (call.fetch ?? fetch)(call.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...call.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    if (!response.ok) return { action: "unavailable", why: `status ${response.status}` };
    answer = await response.json();
  } catch (error) {
    const name = (error as Error).name;
    return { action: "unavailable", why: name === "TimeoutError" ? "timed out" : "unreachable" };
  }
  const parsed = webhookAnswerSchema.safeParse(answer);
  if (!parsed.success) return { action: "unavailable", why: "an answer not in the webhook's shape" };
  const verdict = parsed.data;
  if (verdict.action === "allow") return { action: "allow" };
  if (verdict.action === "block") return verdict.reason === undefined ? { action: "block" } : { action: "block", reason: verdict.reason };
  const texts = verdict.texts ?? (verdict.text !== undefined && call.texts.length === 1 ? [verdict.text] : undefined);
  if (!texts || texts.length !== call.texts.length) return { action: "unavailable", why: "a mask answer without one text per text sent" };
  return { action: "mask", texts };
}
