import type { GateUsage, TokenUsage } from "@conduit-ai/server-core";
import { usageFromTokenUsage } from "@conduit-ai/server-core/pricing";

/**
 * A runtime generation's tokens as the gate settles them: cache reads and writes out of the input
 * count (the runtime counts them inside it), so each is priced at its own price.
 *
 * @example
 * decision.settle({ model, status: 200, latencyMs, ...gateTokensOf(result.usage) });
 */
export function gateTokensOf(
  tokens: Pick<TokenUsage, "inputTokens" | "outputTokens"> & Partial<TokenUsage>,
): Pick<GateUsage, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "reasoningTokens"> {
  const usage = usageFromTokenUsage({ totalTokens: 0, ...tokens });
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    cacheReadTokens: usage.cacheRead,
    cacheWriteTokens: usage.cacheWrite5m,
    reasoningTokens: usage.reasoning,
  };
}
