import type { EmbedCallOptions } from "../embeddings.js";
import { recordUsage } from "./record-usage.js";
import type { UsageLedger } from "./usage-ledger.js";

/**
 * Embeds through `run` and records the call in the usage ledger with the input tokens the
 * provider reported (nothing is recorded when it reported none).
 */
export async function recordedEmbed<T>(
  ledger: UsageLedger | undefined,
  options: EmbedCallOptions,
  run: (call: EmbedCallOptions) => Promise<T>,
): Promise<T> {
  const startedAt = performance.now();
  let used: { provider: string; model: string; inputTokens: number } | undefined;
  const result = await run({ ...options, onUsage: (provider, model, inputTokens) => (used = { provider, model, inputTokens }) });
  if (used)
    await recordUsage(ledger, {
      provider: used.provider,
      model: used.model,
      operation: "embed",
      startedAt,
      usage: { inputTokens: used.inputTokens, outputTokens: 0, totalTokens: used.inputTokens },
    });
  return result;
}
