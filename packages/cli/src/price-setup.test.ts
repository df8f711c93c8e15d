import { describe, expect, it } from "vitest";
import { serverPrices } from "./price-setup.js";
import { assembleServer } from "./server-assembly.js";
import { UsageError } from "./usage-error.js";

describe("one price table for the whole server", () => {
  it("`prices` wins over `proxy.prices`, and a bad entry is refused naming it", () => {
    const file = {
      proxy: { prices: { "claude-haiku": { input: 1, output: 2 }, llama3: { input: 0.1, output: 0.2 } } },
      prices: { "claude-haiku": { input: 3, output: 4 } },
    };
    expect(serverPrices(file)).toEqual({ "claude-haiku": { input: 3, output: 4 }, llama3: { input: 0.1, output: 0.2 } });
    expect(() => serverPrices({ prices: { "gpt-4o": { input: -1, output: 2 } } })).toThrow(UsageError);
    expect(() => serverPrices({ prices: { "gpt-4o": { input: -1, output: 2 } } })).toThrow(/prices\.gpt-4o\.input/);
  });

  it("takes the whole row: 5m/1h cache writes, reasoning, long-context tiers, per-use web search, batch; the old cacheWrite key too", () => {
    const row = {
      input: 3,
      output: 15,
      cacheWrite5m: 3.75,
      cacheWrite1h: 6,
      reasoning: 15,
      tiers: [{ aboveInputTokens: 200_000, input: 6, output: 22.5 }],
      perCall: { webSearch: 0.01 },
      batch: 0.5,
      source: "https://example.com/pricing (read 2025-10)",
    };
    expect(serverPrices({ prices: { "claude-x": row, "claude-old": { input: 1, output: 5, cacheWrite: 1.25 } } })).toEqual({
      "claude-x": row,
      "claude-old": { input: 1, output: 5, cacheWrite: 1.25 },
    });
    expect(() => serverPrices({ prices: { "claude-x": { ...row, batch: 2 } } })).toThrow(/prices\.claude-x\.batch/);
    expect(() => serverPrices({ prices: { "claude-x": { ...row, tiers: [{ aboveInputTokens: 1, input: -1, output: 1 }] } } })).toThrow(
      /prices\.claude-x\.tiers/,
    );
  });

  it("the runtime's usage ledger of `conduit serve` charges the configured prices", async () => {
    const assembled = await assembleServer(
      { framework: "hono", server: { port: 0 }, file: { prices: { "gpt-4o-mini": { input: 7, output: 9 } } } },
      { NODE_ENV: "test" },
    );
    try {
      const usage = assembled.server.runtime?.usage;
      expect(usage?.priceOf?.("openai", "gpt-4o-mini")).toEqual({ inputPerMillionUsd: 7, outputPerMillionUsd: 9 });
      // The defaults stay behind the overrides: the same entry server-core, the proxy and governance read.
      expect(usage?.priceOf?.("anthropic", "claude-sonnet-4-5")).toEqual({ inputPerMillionUsd: 3, outputPerMillionUsd: 15 });
    } finally {
      await assembled.close();
    }
  });
});
