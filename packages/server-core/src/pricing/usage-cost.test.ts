import { describe, expect, it } from "vitest";
import { emptyUsage, usageFromAnthropic, usageFromOpenAIChat } from "./metered-usage.js";
import { DEFAULT_PRICES, mergePrices, priceOf } from "./model-prices.js";
import { costOf, costPicoUsd, savedPicoUsd } from "./usage-cost.js";

const sonnet = priceOf(DEFAULT_PRICES, "claude-sonnet-4-5-20250929")!;

describe("the one price function", () => {
  it("prices each field of the usage at its own price, in integer pico-dollars", () => {
    const usage = usageFromAnthropic({
      input_tokens: 1000,
      output_tokens: 500,
      cache_read_input_tokens: 20_000,
      cache_creation: { ephemeral_5m_input_tokens: 4000, ephemeral_1h_input_tokens: 2000 },
      server_tool_use: { web_search_requests: 3 },
    });
    // 1000×3 + 500×15 + 20000×0.3 + 4000×3.75 + 2000×6 (per million) + 3 × $0.01
    const expected = (1000 * 3 + 500 * 15 + 20_000 * 0.3 + 4000 * 3.75 + 2000 * 6) * 1e6 + 3 * 0.01 * 1e12;
    expect(costPicoUsd(sonnet, usage)).toBe(expected);
    expect(Number.isSafeInteger(costPicoUsd(sonnet, usage))).toBe(true);
  });

  it("prices a 1-hour cache write at 2× input and a 5-minute one at 1.25×, as Anthropic bills them", () => {
    const oneHour = { ...emptyUsage(), cacheWrite1h: 100_000 };
    const fiveMinutes = { ...emptyUsage(), cacheWrite5m: 100_000 };
    expect(costOf(DEFAULT_PRICES, "claude-sonnet-4", oneHour)).toBe(0.6);
    expect(costOf(DEFAULT_PRICES, "claude-sonnet-4", fiveMinutes)).toBe(0.375);
    expect(costOf(DEFAULT_PRICES, "claude-haiku-4-5", oneHour)).toBe(0.2);
  });

  it("fills Anthropic's multipliers into a configured row that names only input and output, and reads the old cacheWrite key as 5-minute", () => {
    const table = mergePrices({ "claude-next": { input: 4, output: 20 }, "claude-old": { input: 4, output: 20, cacheWrite: 7 } });
    expect(table["claude-next"]).toMatchObject({ cacheRead: 0.4, cacheWrite5m: 5, cacheWrite1h: 8 });
    expect(table["claude-old"]).toMatchObject({ cacheWrite5m: 7, cacheWrite1h: 8 });
    expect(table["claude-old"]).not.toHaveProperty("cacheWrite");
    // Another vendor's row is left as configured: its cache prices fall back to input.
    expect(mergePrices({ llama3: { input: 1, output: 1 } }).llama3).toEqual({ input: 1, output: 1 });
    expect(costOf(mergePrices({ llama3: { input: 1, output: 1 } }), "llama3", { ...emptyUsage(), cacheRead: 1_000_000 })).toBe(1);
  });

  it("prices reasoning tokens at `reasoning` (default: output), out of the output count", () => {
    const usage = usageFromOpenAIChat({
      prompt_tokens: 1000,
      completion_tokens: 800,
      prompt_tokens_details: { cached_tokens: 600 },
      completion_tokens_details: { reasoning_tokens: 500 },
    });
    const gpt5 = priceOf(DEFAULT_PRICES, "gpt-5")!;
    // 400 uncached × 1.25 + 600 cached × 0.125 + 800 output × 10
    expect(costPicoUsd(gpt5, usage)).toBe((400 * 1.25 + 600 * 0.125 + 800 * 10) * 1e6);
    expect(costPicoUsd({ ...gpt5, reasoning: 20 }, usage)).toBe((400 * 1.25 + 600 * 0.125 + 300 * 10 + 500 * 20) * 1e6);
  });

  it("prices every token at the long-context tier once the input (cache included) passes it", () => {
    const short = { ...emptyUsage(), input: 100_000, cacheRead: 100_000, output: 1000 };
    const long = { ...short, input: 100_001 };
    expect(costPicoUsd(sonnet, short)).toBe((100_000 * 3 + 100_000 * 0.3 + 1000 * 15) * 1e6);
    expect(costPicoUsd(sonnet, long)).toBe((100_001 * 6 + 100_000 * 0.6 + 1000 * 22.5) * 1e6);
  });

  it("applies the batch factor to tokens only when asked, and never to per-use fees", () => {
    const usage = { ...emptyUsage(), input: 100_000, serverTools: { webSearch: 2 } };
    expect(costPicoUsd(sonnet, usage)).toBe(0.32e12);
    expect(costPicoUsd(sonnet, usage, { batch: true })).toBe(0.17e12);
  });

  it("says what cache reads saved against the full input price", () => {
    expect(savedPicoUsd(sonnet, { ...emptyUsage(), cacheRead: 100_000 })).toBe(0.27e12);
    expect(savedPicoUsd({ input: 1, output: 1 }, { ...emptyUsage(), cacheRead: 1_000_000 })).toBe(0);
  });

  it("names the source of every Anthropic and OpenAI row", () => {
    for (const [model, price] of Object.entries(DEFAULT_PRICES))
      if (/^(claude|gpt|o4|text-embedding-3)/.test(model)) expect(price.source ?? "", model).toMatch(/^https:\/\/.+\(read \d{4}-\d{2}\)$/);
  });
});
