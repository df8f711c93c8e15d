import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES, mergePrices, mostExpensivePrice, priceOf, vendorFamilyOf } from "./model-prices.js";

describe("the price table", () => {
  it("prices by longest prefix, a routed `<provider>/<model>` by its model part, and says unpriced as undefined", () => {
    expect(priceOf(DEFAULT_PRICES, "claude-haiku-4-5-20251001")).toMatchObject({ input: 1, output: 5 });
    expect(priceOf(DEFAULT_PRICES, "anthropic/claude-opus-4")).toMatchObject({ output: 75 });
    expect(priceOf(DEFAULT_PRICES, "openai/gpt-4o-mini")).toMatchObject({ output: 0.6 });
    expect(priceOf(DEFAULT_PRICES, "claude-future-9")).toBeUndefined();
    expect(priceOf(DEFAULT_PRICES, "ollama/llama3")).toBeUndefined();
    // The offline local provider is free, by name and as a routed id.
    expect(priceOf(DEFAULT_PRICES, "local")).toEqual({ input: 0, output: 0 });
    expect(priceOf(DEFAULT_PRICES, "local/echo")).toEqual({ input: 0, output: 0 });
    expect(priceOf(mergePrices({ "openai/gpt-4o": { input: 9, output: 9 } }), "openai/gpt-4o")).toMatchObject({ input: 9 });
  });

  it("prices the current models of every provider type, routed as <provider>/<model>", () => {
    expect(priceOf(DEFAULT_PRICES, "gemini/gemini-2.5-flash")).toMatchObject({ input: 0.3, output: 2.5, cacheRead: 0.03 });
    expect(priceOf(DEFAULT_PRICES, "vertex/claude-sonnet-4-5@20250929")).toMatchObject({ input: 3, output: 15 });
    expect(priceOf(DEFAULT_PRICES, "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0")).toMatchObject({ input: 3, cacheWrite5m: 3.75 });
    expect(priceOf(DEFAULT_PRICES, "bedrock/amazon.nova-pro-v1:0")).toMatchObject({ input: 0.8, output: 3.2 });
    expect(priceOf(DEFAULT_PRICES, "mistral/mistral-large-latest")).toMatchObject({ input: 2, output: 6 });
    expect(priceOf(DEFAULT_PRICES, "cohere/command-a-03-2025")).toMatchObject({ input: 2.5, output: 10 });
    expect(priceOf(DEFAULT_PRICES, "cohere/command-r-08-2024")).toMatchObject({ input: 0.15 });
    expect(priceOf(DEFAULT_PRICES, "xai/grok-4-fast-reasoning")).toMatchObject({ input: 0.2, output: 0.5 });
    expect(priceOf(DEFAULT_PRICES, "groq/openai/gpt-oss-120b")).toMatchObject({ input: 0.15, output: 0.75 });
    expect(priceOf(DEFAULT_PRICES, "deepseek/deepseek-chat")).toMatchObject({ cacheRead: 0.028 });
  });

  it("names vendor families and their dearest rows (what an unpriced model is estimated at)", () => {
    expect(vendorFamilyOf("claude-future-9")).toBe("anthropic");
    expect(vendorFamilyOf("openai/o9-preview")).toBe("openai");
    expect(vendorFamilyOf("gemini-2.5-pro")).toBe("gemini");
    expect(mostExpensivePrice(DEFAULT_PRICES, "anthropic")).toMatchObject({ input: 15, output: 75 });
    expect(mostExpensivePrice(DEFAULT_PRICES, "openai")).toMatchObject({ input: 2.5, output: 10 });
    expect(mostExpensivePrice(DEFAULT_PRICES, "gemini")).toMatchObject({ input: 1.25, output: 10 });
    expect(mostExpensivePrice(DEFAULT_PRICES, "qwen")).toBeUndefined();
    expect(mostExpensivePrice(DEFAULT_PRICES)).toMatchObject({ output: 75 });
  });

  it("refuses a price a budget could not count (negative, not finite, above $10,000 per million tokens)", () => {
    for (const price of [
      { input: 1e308, output: 1 },
      { input: -1, output: 1 },
      { input: 1, output: Number.NaN },
    ])
      expect(() => mergePrices({ odd: price })).toThrow(RangeError);
    expect(mergePrices({ odd: { input: 10_000, output: 0 } }).odd).toMatchObject({ input: 10_000 });
  });
});
