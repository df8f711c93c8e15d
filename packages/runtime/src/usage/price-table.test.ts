import { DEFAULT_PRICES, costOf } from "@conduit-ai/server-core";
import { emptyUsage, usageFromTokenUsage } from "@conduit-ai/server-core/pricing";
import { describe, expect, it } from "vitest";
import { PriceTable } from "./price-table.js";

describe("the runtime's price table", () => {
  it("charges what the server's one table charges (the proxy's pool and governance read it too)", () => {
    const prices = new PriceTable();
    for (const model of ["claude-sonnet-4-5-20250929", "claude-haiku-4-5", "gpt-4o-mini", "gpt-5-mini", "text-embedding-3-small"]) {
      const server = costOf(DEFAULT_PRICES, model, { ...emptyUsage(), input: 1234, output: 567 });
      expect(prices.costOf("any", model, { inputTokens: 1234, outputTokens: 567 }), model).toBe(server);
    }
  });

  it("prices cache reads and writes inside the runtime's input count at their own prices, and reasoning as output", () => {
    const prices = new PriceTable();
    const usage = {
      inputTokens: 10_000,
      outputTokens: 1000,
      totalTokens: 11_000,
      cacheReadTokens: 8000,
      cacheWriteTokens: 1000,
      reasoningTokens: 400,
    };
    // 1000 uncached × 3 + 8000 read × 0.3 + 1000 written × 3.75 + 1000 output × 15, per million
    expect(prices.costOf("anthropic", "claude-sonnet-4-5", usage)).toBeCloseTo((1000 * 3 + 8000 * 0.3 + 1000 * 3.75 + 1000 * 15) / 1e6, 15);
    expect(prices.costOf("anthropic", "claude-sonnet-4-5", usage)).toBe(
      costOf(DEFAULT_PRICES, "claude-sonnet-4-5", usageFromTokenUsage(usage)),
    );
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
    expect(prices.costOf("local", "echo", { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
  });
});
