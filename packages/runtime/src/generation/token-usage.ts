import type { TokenUsage } from "@conduit-ai/server-core";

/** Usage of a Chat Completions answer (OpenAI's fields, and DeepSeek's cache-hit count). */
export interface ChatCompletionsUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
}

/** Chat Completions usage in the runtime's shape; details only when reported and non-zero. */
export function fromChatCompletionsUsage(usage: ChatCompletionsUsage): TokenUsage {
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  const cacheReadTokens = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
    ...(cacheReadTokens ? { cacheReadTokens } : {}),
    ...(reasoningTokens ? { reasoningTokens } : {}),
  };
}

const DETAILS = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;

/** The usage of two model calls together (the steps of a tool loop). */
export function addTokenUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    inputTokens: total.inputTokens + step.inputTokens,
    outputTokens: total.outputTokens + step.outputTokens,
    totalTokens: total.totalTokens + step.totalTokens,
  };
  for (const detail of DETAILS) {
    const value = (total[detail] ?? 0) + (step[detail] ?? 0);
    if (value > 0) sum[detail] = value;
  }
  return sum;
}
