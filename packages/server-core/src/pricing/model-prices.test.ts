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

  it("names vendor families and their dearest rows (what an unpriced model is estimated at)", () => {
    expect(vendorFamilyOf("claude-future-9")).toBe("anthropic");
    expect(vendorFamilyOf("openai/o9-preview")).toBe("openai");
    expect(vendorFamilyOf("gemini-2.5-pro")).toBe("gemini");
    expect(mostExpensivePrice(DEFAULT_PRICES, "anthropic")).toMatchObject({ input: 15, output: 75 });
    expect(mostExpensivePrice(DEFAULT_PRICES, "openai")).toMatchObject({ input: 2.5, output: 10 });
    expect(mostExpensivePrice(DEFAULT_PRICES, "gemini")).toBeUndefined();
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
