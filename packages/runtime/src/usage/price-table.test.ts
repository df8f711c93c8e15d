import { DEFAULT_PRICES, costOf } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { PriceTable } from "./price-table.js";

describe("the runtime's price table", () => {
  it("charges what the server's one table charges (the proxy's pool and governance read it too)", () => {
    const prices = new PriceTable();
    for (const model of ["claude-sonnet-4-5-20250929", "claude-haiku-4-5", "gpt-4o-mini", "gpt-5-mini", "text-embedding-3-small"]) {
      const server = costOf(DEFAULT_PRICES, model, { inputTokens: 1234, outputTokens: 567, cacheReadTokens: 0, cacheCreationTokens: 0 });
      expect(prices.costOf("any", model, 1234, 567), model).toBeCloseTo(server, 12);
    }
  });

  it("takes the `prices` config key's shape, by longest model prefix, and `provider/model` first", () => {
    const prices = new PriceTable({
      "claude-sonnet-4": { input: 2, output: 10 },
      "ollama/llama3": { input: 0, output: 0 },
      "gpt-4o": { inputPerMillionUsd: 3, outputPerMillionUsd: 12 },
    });
    expect(prices.priceOf("anthropic", "claude-sonnet-4-5-20250929")).toEqual({ inputPerMillionUsd: 2, outputPerMillionUsd: 10 });
    expect(prices.priceOf("ollama", "llama3")).toEqual({ inputPerMillionUsd: 0, outputPerMillionUsd: 0 });
    expect(prices.priceOf("openai", "llama3")).toBeUndefined();
    expect(prices.priceOf("openai", "gpt-4o-2024-08-06")).toEqual({ inputPerMillionUsd: 3, outputPerMillionUsd: 12 });
    // gpt-4o-mini keeps its own default entry: the longer prefix wins over the override of gpt-4o.
    expect(prices.priceOf("openai", "gpt-4o-mini")).toEqual({ inputPerMillionUsd: 0.15, outputPerMillionUsd: 0.6 });
    expect(prices.costOf("local", "echo", 1_000_000, 1_000_000)).toBe(0);
  });
});
