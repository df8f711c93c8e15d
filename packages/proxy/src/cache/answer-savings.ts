import { type MeteredUsage, type PriceTable, costOf } from "@conduit-ai/server-core";

/** The usage one JSON document of an answer reports (its body, or one stream event's data), if any. */
export type UsageReport<U> = (document: Record<string, unknown>) => U | null | undefined;

/** The usage a stored answer reported: its JSON body's, or the last a stream's `data:` events named. */
function reportedUsage<U>(bytes: Buffer, contentType: string, report: UsageReport<U>): U | undefined {
  const text = bytes.toString("utf8");
  const documents = contentType.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => line.slice(6))
    : [text];
  let found: U | undefined;
  for (const document of documents) {
    try {
      const parsed: unknown = JSON.parse(document);
      if (parsed !== null && typeof parsed === "object") found = report(parsed as Record<string, unknown>) ?? found;
    } catch {
      // A line that is not one JSON document reports nothing.
    }
  }
  return found;
}

/**
 * What a stored answer of an OpenAI-compatible surface saves on a hit: the usage it reported,
 * read in the one usage shape (`toUsage`), at `model`'s price — cached tokens at the cache-read
 * price; $0 when it reported none (a chat stream without `include_usage`).
 *
 * @example
 * cacheCall(cache, ctx, admitted, call, answerSavings(prices, model, (json) => json.usage, usageFromOpenAIChat));
 */
export function answerSavings<U>(
  prices: PriceTable,
  model: string,
  report: UsageReport<U>,
  toUsage: (usage: U) => MeteredUsage,
): (bytes: Buffer, contentType: string) => { model: string; savedUsd: number } {
  return (bytes, contentType) => {
    const usage = reportedUsage(bytes, contentType, report);
    return { model, savedUsd: usage ? costOf(prices, model, toUsage(usage)) : 0 };
  };
}
