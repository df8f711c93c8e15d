import { type PriceTable, costOf } from "@conduit-ai/server-core";
import { usageFromOpenAIChat } from "@conduit-ai/server-core/pricing";

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** The model and usage a chat answer reported: a completion's `usage`, or a stream's usage chunk (`stream_options.include_usage`). */
function reported(bytes: Buffer, contentType: string): { model?: string; usage?: ChatUsage } {
  const text = bytes.toString("utf8");
  if (!contentType.includes("text/event-stream")) {
    try {
      return JSON.parse(text) as { model?: string; usage?: ChatUsage };
    } catch {
      return {};
    }
  }
  let found: { model?: string; usage?: ChatUsage } = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    try {
      const chunk = JSON.parse(line.slice(6)) as { model?: string; usage?: ChatUsage | null };
      found = {
        ...(chunk.model ? { model: chunk.model } : { ...(found.model ? { model: found.model } : {}) }),
        ...(chunk.usage ? { usage: chunk.usage } : found.usage ? { usage: found.usage } : {}),
      };
    } catch {
      // A line that is not one JSON chunk reports nothing.
    }
  }
  return found;
}

/**
 * What a stored chat answer saves on a hit: its reported usage at `model`'s price (cached prompt
 * tokens at the cache-read price); $0 when it reported none (a stream without `include_usage`).
 */
export function chatAnswerSavings(
  prices: PriceTable,
  model: string,
): (bytes: Buffer, contentType: string) => { model: string; savedUsd: number } {
  return (bytes, contentType) => {
    const answer = reported(bytes, contentType);
    if (!answer.usage) return { model, savedUsd: 0 };
    return { model, savedUsd: costOf(prices, model, usageFromOpenAIChat(answer.usage)) };
  };
}
