/** Token counts of a Messages API answer (`message_start` and `message_delta` carry parts of them). */
export interface VendorUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** `end_turn`/`stop_sequence` → `stop`, `max_tokens` → `length`, `tool_use` → `tool_calls`. */
export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

/** OpenAI counts cached prompt tokens inside `prompt_tokens`; the Messages API counts them apart. */
export function chatUsageOf(usage: VendorUsage): ChatUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  const completionTokens = usage.output_tokens ?? 0;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}
