import type { TokenPrice } from "./token-price.js";

/**
 * Anthropic's list prices, USD per million tokens. Cache prices are the vendor's multipliers of
 * input (read 0.1×, 5-minute write 1.25×, 1-hour write 2×); a web search is $10 per 1,000; the
 * Message Batches API halves everything. This workplace has no web access: re-check before relying on them.
 */
const ANTHROPIC_SOURCE = "https://docs.anthropic.com/en/docs/about-claude/pricing (read 2025-10)";

function anthropic(input: number, output: number, extra: Partial<TokenPrice> = {}): TokenPrice {
  const usd = (value: number) => Math.round(value * 1e6) / 1e6;
  return {
    input,
    output,
    cacheRead: usd(input * 0.1),
    cacheWrite5m: usd(input * 1.25),
    cacheWrite1h: usd(input * 2),
    perCall: { webSearch: 0.01 },
    batch: 0.5,
    source: ANTHROPIC_SOURCE,
    ...extra,
  };
}

/** Claude Sonnet 4 and 4.5 with the 1M-token context: past 200k input tokens every token costs 2× input, 1.5× output. */
const SONNET_LONG_CONTEXT = { tiers: [{ aboveInputTokens: 200_000, input: 6, output: 22.5 }] };

export const ANTHROPIC_PRICES: Record<string, TokenPrice> = {
  "claude-opus-4-5": anthropic(5, 25),
  "claude-opus-4": anthropic(15, 75),
  "claude-3-opus": anthropic(15, 75),
  "claude-sonnet-4": anthropic(3, 15, SONNET_LONG_CONTEXT),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-3-5-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  // Claude 3 Haiku's cache read is listed at $0.03, not 0.1× of $0.25.
  "claude-3-haiku": anthropic(0.25, 1.25, { cacheRead: 0.03 }),
};

/**
 * OpenAI's standard-tier list prices, USD per million tokens: cached input as listed (writes are
 * free: OpenAI reports none), reasoning tokens at the output price, the web search tool per call
 * ($10 per 1,000 for reasoning models, $25 for GPT-4o and GPT-4.1), the Batch API at half price.
 */
const OPENAI_SOURCE = "https://platform.openai.com/docs/pricing (read 2025-10)";

function openai(input: number, output: number, cacheRead: number | undefined, webSearch?: number): TokenPrice {
  return {
    input,
    output,
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(webSearch !== undefined ? { perCall: { webSearch } } : {}),
    batch: 0.5,
    source: OPENAI_SOURCE,
  };
}

export const OPENAI_PRICES: Record<string, TokenPrice> = {
  "gpt-5": openai(1.25, 10, 0.125, 0.01),
  "gpt-5-mini": openai(0.25, 2, 0.025, 0.01),
  "gpt-5-nano": openai(0.05, 0.4, 0.005, 0.01),
  "gpt-4.1": openai(2, 8, 0.5, 0.025),
  "gpt-4.1-mini": openai(0.4, 1.6, 0.1, 0.025),
  "gpt-4.1-nano": openai(0.1, 0.4, 0.025, 0.025),
  "gpt-4o": openai(2.5, 10, 1.25, 0.025),
  "gpt-4o-mini": openai(0.15, 0.6, 0.075, 0.025),
  "o4-mini": openai(1.1, 4.4, 0.275, 0.01),
  "text-embedding-3-small": openai(0.02, 0, undefined),
  "text-embedding-3-large": openai(0.13, 0, undefined),
};
