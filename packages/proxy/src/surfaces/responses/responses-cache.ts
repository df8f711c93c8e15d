import type { PriceTable } from "@conduit-ai/server-core";
import { type OpenAIResponsesWireUsage, usageFromOpenAIResponses } from "@conduit-ai/server-core/pricing";
import { answerSavings } from "../../cache/answer-savings.js";

type Reported = { usage?: OpenAIResponsesWireUsage | null; response?: { usage?: OpenAIResponsesWireUsage | null } };

/**
 * What a stored Responses answer saves on a hit: its reported usage — the response object's
 * `usage`, or a stream's `response.completed` (or `response.incomplete`) — at `model`'s price
 * (cached input tokens at the cache-read price).
 */
export function responsesAnswerSavings(
  prices: PriceTable,
  model: string,
): (bytes: Buffer, contentType: string) => { model: string; savedUsd: number } {
  return answerSavings(
    prices,
    model,
    (document) => (document as Reported).response?.usage ?? (document as Reported).usage,
    usageFromOpenAIResponses,
  );
}
