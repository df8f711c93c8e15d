import type { ModelPrice } from "./config.js";

/** Dollars per million tokens for current models, by id prefix (the longest matching prefix wins). */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-opus-4": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-3-opus": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-5-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  "claude-3-haiku": { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
};

/** Token counts of one response. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The configured prices over the defaults. */
export function mergePrices(configured: Record<string, ModelPrice>): PriceTable {
  return { ...DEFAULT_PRICES, ...configured };
}

export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(table)) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : table[best];
}

/** Dollars for one response; an unknown model costs 0 (reported, not guessed). */
export function costOf(table: PriceTable, model: string, usage: TokenUsage): number {
  const price = priceOf(table, model);
  if (!price) return 0;
  const perToken = 1 / 1_000_000;
  return (
    usage.inputTokens * price.input * perToken +
    usage.outputTokens * price.output * perToken +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) * perToken +
    usage.cacheCreationTokens * (price.cacheWrite ?? price.input) * perToken
  );
}
