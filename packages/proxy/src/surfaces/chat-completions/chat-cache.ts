import type { PriceTable } from "@conduit-ai/server-core";
import { type OpenAIChatWireUsage, usageFromOpenAIChat } from "@conduit-ai/server-core/pricing";
import { answerSavings } from "../../cache/answer-savings.js";

/**
 * What a stored chat answer saves on a hit: its reported usage — a completion's `usage`, or a
 * stream's usage chunk (`stream_options.include_usage`) — at `model`'s price (cached prompt
 * tokens at the cache-read price); $0 when it reported none.
 */
export function chatAnswerSavings(
  prices: PriceTable,
  model: string,
): (bytes: Buffer, contentType: string) => { model: string; savedUsd: number } {
  return answerSavings(prices, model, (document) => document.usage as OpenAIChatWireUsage | null | undefined, usageFromOpenAIChat);
}
