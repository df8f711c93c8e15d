import { randomUUID } from "node:crypto";
import type { AnswerModel, ModelTurn } from "../model-turn.js";

/** Anthropic Messages wire shapes: a `message` body, its SSE event sequence, errors and rate-limit headers. */

export type MessagesEvent = { event: string; data: unknown };

/** The rate-limit headers Anthropic sends on every answer (a minute's window, a 5-hour utilisation). */
export function rateLimitHeaders(): Record<string, string> {
  const reset = new Date(Date.now() + 60_000).toISOString();
  const resetSeconds = String(Math.floor(Date.now() / 1000) + 3600);
  return {
    "anthropic-ratelimit-requests-limit": "1000",
    "anthropic-ratelimit-requests-remaining": "999",
    "anthropic-ratelimit-requests-reset": reset,
    "anthropic-ratelimit-tokens-limit": "400000",
    "anthropic-ratelimit-tokens-remaining": "399000",
    "anthropic-ratelimit-tokens-reset": reset,
    "anthropic-ratelimit-unified-status": "allowed",
    "anthropic-ratelimit-unified-5h-utilization": "0.25",
    "anthropic-ratelimit-unified-5h-reset": resetSeconds,
    "anthropic-ratelimit-unified-reset": resetSeconds,
  };
}

/** Anthropic's error body (`{ type: "error", error: { type, message } }`). */
export function errorBody(type: string, message = `${type} from fake upstream`): Record<string, unknown> {
  return { type: "error", error: { type, message } };
}

/**
 * What a real model answers: signed thinking when `thinking` is enabled, a call of the first
 * declared tool (`{ city: "Paris", unit: "c" }`) when tools are given, a text with non-ASCII
 * characters otherwise; cache reads and writes in its usage.
 */
export const claudeAnswer: AnswerModel = (request) => {
  const body = request.body as { thinking?: { type: string }; tools?: Array<{ name: string }>; messages?: unknown[] };
  const tool = body.tools?.[0];
  return {
    ...(body.thinking?.type === "enabled"
      ? { thinking: { text: "Let me think — ünïcödé ✓", signature: "EqQBCkYIBxgCKkBsig+/=\u00e9" } }
      : {}),
    ...(tool
      ? { toolCall: { id: `toolu_${randomUUID().slice(0, 8)}`, name: tool.name, input: { city: "Paris", unit: "c" } } }
      : { text: ["Hello from", " the fake — ünïcödé ✓ 🚀"] }),
    usage: { input: 11 + (body.messages?.length ?? 0), output: 7, cacheWrite: 3, cacheRead: 5 },
  };
};

function usageOf(turn: ModelTurn) {
  const oneHour = turn.usage?.cacheWrite1h;
  return {
    input_tokens: turn.usage?.input ?? 12,
    output_tokens: turn.usage?.output ?? 5,
    cache_creation_input_tokens: (turn.usage?.cacheWrite ?? 0) + (oneHour ?? 0),
    cache_read_input_tokens: turn.usage?.cacheRead ?? 0,
    ...(oneHour !== undefined
      ? { cache_creation: { ephemeral_5m_input_tokens: turn.usage?.cacheWrite ?? 0, ephemeral_1h_input_tokens: oneHour } }
      : {}),
  };
}

function contentOf(turn: ModelTurn): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = [];
  if (turn.thinking) content.push({ type: "thinking", thinking: turn.thinking.text, signature: turn.thinking.signature });
  if (turn.text) content.push({ type: "text", text: turn.text.join("") });
  const call = turn.toolCall;
  if (call) content.push({ type: "tool_use", id: call.id ?? "toolu_1", name: call.name, input: call.input });
  return content;
}

/** A complete `message` for `text` (the shape `POST /v1/messages` answers without `stream`). */
export function textMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return messageBody({ text: [text] }, "claude-sonnet-4-5-20250929", { id: "msg_fake_1", ...extra });
}

/** The `message` JSON body of a turn. */
export function messageBody(turn: ModelTurn, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `msg_${randomUUID().slice(0, 12)}`,
    type: "message",
    role: "assistant",
    model,
    content: contentOf(turn),
    stop_reason: turn.toolCall ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: usageOf(turn),
    ...extra,
  };
}

function blockEvents(block: Record<string, unknown>, index: number, pieces: string[]): MessagesEvent[] {
  const event = (name: string, data: Record<string, unknown>) => ({ event: name, data: { type: name, index, ...data } });
  const delta = (payload: Record<string, unknown>) => event("content_block_delta", { delta: payload });
  if (block.type === "thinking")
    return [
      event("content_block_start", { content_block: { type: "thinking", thinking: "", signature: "" } }),
      delta({ type: "thinking_delta", thinking: block.thinking }),
      delta({ type: "signature_delta", signature: block.signature }),
    ];
  if (block.type === "tool_use") {
    const json = JSON.stringify(block.input);
    return [
      event("content_block_start", { content_block: { ...block, input: {} } }),
      delta({ type: "input_json_delta", partial_json: json.slice(0, 8) }),
      delta({ type: "input_json_delta", partial_json: json.slice(8) }),
    ];
  }
  return [
    event("content_block_start", { content_block: { type: "text", text: "" } }),
    ...pieces.map((text) => delta({ type: "text_delta", text })),
  ];
}

/** The Messages streaming events of a turn, as Anthropic sends them (one `text_delta` per piece). */
export function streamEvents(turn: ModelTurn, model: string): MessagesEvent[] {
  const usage = usageOf(turn);
  const start = { ...messageBody(turn, model), content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } };
  const events: MessagesEvent[] = [
    { event: "message_start", data: { type: "message_start", message: start } },
    { event: "ping", data: { type: "ping" } },
  ];
  contentOf(turn).forEach((block, index) => {
    events.push(...blockEvents(block, index, turn.text ?? []));
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  const delta = { stop_reason: turn.toolCall ? "tool_use" : "end_turn", stop_sequence: null };
  events.push({ event: "message_delta", data: { type: "message_delta", delta, usage: { output_tokens: usage.output_tokens } } });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

/** The Messages events of a text answer split into `pieces` (for scripted replies). */
export function textStreamEvents(
  pieces: string[],
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number } = {
    input_tokens: 10,
    cache_read_input_tokens: 4,
    output_tokens: 1,
  },
): MessagesEvent[] {
  const turn = { text: pieces, usage: { input: usage.input_tokens, output: pieces.length, cacheRead: usage.cache_read_input_tokens ?? 0 } };
  return streamEvents(turn, "claude-sonnet-4-5-20250929");
}

/** SSE framing of one event: `event: NAME\ndata: JSON\n\n`. */
export function eventFrame({ event, data }: MessagesEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
