import type { ModelTurn } from "../model-turn.js";

/** OpenAI's wire shapes for one answer: a `chat.completion` body, `chat.completion.chunk` SSE frames, errors, embeddings. */

const ID = "chatcmpl-fake";

/**
 * Where a vendor of the Chat Completions wire puts its usage details: OpenAI
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`; xAI the
 * same, but its `completion_tokens` leave the reasoning tokens out; Groq the
 * same, but a stream's usage in the last chunk's `x_groq`; DeepSeek its cache as
 * `prompt_cache_hit_tokens`/`prompt_cache_miss_tokens`; Mistral OpenAI's fields, a stream's usage
 * in its finish chunk.
 */
export type UsageStyle = "openai" | "xai" | "groq" | "deepseek" | "mistral";

function usageOf(turn: ModelTurn, style: UsageStyle = "openai") {
  const input = turn.usage?.input ?? 11;
  const output = turn.usage?.output ?? 7;
  const cached = turn.usage?.cacheRead;
  const reasoning = turn.usage?.reasoning;
  const cache =
    cached === undefined
      ? {}
      : style === "deepseek"
        ? { prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: input - cached }
        : { prompt_tokens_details: { cached_tokens: cached } };
  return {
    prompt_tokens: input,
    completion_tokens: style === "xai" ? output - (reasoning ?? 0) : output,
    total_tokens: input + output,
    ...cache,
    ...(reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: reasoning } }),
  };
}

function toolCallOf(turn: ModelTurn) {
  const call = turn.toolCall;
  return call && { id: call.id ?? "call_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.input) } };
}

/** The `chat.completion` JSON body of a turn. */
export function completionBody(turn: ModelTurn, model: string, style: UsageStyle = "openai"): Record<string, unknown> {
  const toolCall = toolCallOf(turn);
  const message = toolCall
    ? { role: "assistant", content: null, tool_calls: [toolCall] }
    : { role: "assistant", content: (turn.text ?? []).join("") };
  return {
    id: ID,
    object: "chat.completion",
    created: 1,
    model,
    choices: [{ index: 0, message, finish_reason: toolCall ? "tool_calls" : "stop" }],
    usage: usageOf(turn, style),
  };
}

export function chunkFrame(
  model: string,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  const chunk = {
    id: ID,
    object: "chat.completion.chunk",
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * The SSE frames of a turn, grouped as they are written: the role chunk with the first piece (or
 * the tool call), one chunk per further piece, then — unless the turn is cut — the finish chunk, a
 * usage chunk (as `stream_options.include_usage` asks) and `[DONE]` with the last piece.
 */
export function streamFrames(turn: ModelTurn, model: string, style: UsageStyle = "openai"): string[][] {
  const toolCall = toolCallOf(turn);
  const pieces = toolCall ? [] : (turn.text ?? []).map((piece) => chunkFrame(model, { content: piece }));
  const role = toolCall
    ? chunkFrame(model, { role: "assistant", tool_calls: [{ index: 0, ...toolCall }] })
    : chunkFrame(model, { role: "assistant", content: "" });
  const groups = [[role, ...pieces.slice(0, 1)], ...pieces.slice(1).map((piece) => [piece])];
  if (turn.cut) return groups;
  const finish = toolCall ? "tool_calls" : "stop";
  if (style === "mistral") {
    groups.at(-1)?.push(chunkFrame(model, {}, finish, { usage: usageOf(turn, style) }), "data: [DONE]\n\n");
    return groups;
  }
  if (style === "groq") {
    groups.at(-1)?.push(chunkFrame(model, {}, finish, { x_groq: { id: "req_fake", usage: usageOf(turn, style) } }), "data: [DONE]\n\n");
    return groups;
  }
  const usage = { id: ID, object: "chat.completion.chunk", created: 1, model, choices: [], usage: usageOf(turn, style) };
  groups.at(-1)?.push(chunkFrame(model, {}, finish), `data: ${JSON.stringify(usage)}\n\n`, "data: [DONE]\n\n");
  return groups;
}

/** OpenAI's error body (`{ error: { message, type, code } }`). */
export function errorBody(type: string, message = `${type} from fake upstream`): Record<string, unknown> {
  return { error: { message, type, code: type } };
}

/** The `/v1/embeddings` answer: one small vector per input. */
export function embeddingsBody(body: Record<string, unknown>): Record<string, unknown> {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  return {
    object: "list",
    data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [index, 1, 0.5] })),
    model: body.model,
    usage: { prompt_tokens: 3, total_tokens: 3 },
  };
}
