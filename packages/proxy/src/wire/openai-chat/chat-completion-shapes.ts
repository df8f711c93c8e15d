import { type AnthropicWireUsage, openAIChatUsageOf, usageFromAnthropic } from "@conduit-ai/server-core/pricing";

/** Token counts of a Messages API answer (`message_start` and `message_delta` carry parts of them). */
export type VendorUsage = AnthropicWireUsage;

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
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

/** OpenAI counts cached prompt tokens (and writes) inside `prompt_tokens`; the Messages API counts them apart. */
export function chatUsageOf(usage: VendorUsage): ChatUsage {
  return openAIChatUsageOf(usageFromAnthropic(usage));
}
