/**
 * One price table for the whole server: the proxy's account pool, the runtime's usage ledger and
 * governance's budgets all read it, so a dollar means the same everywhere. Prices are USD per
 * million tokens, keyed by model id prefix (the longest matching prefix wins).
 */

/** USD per million tokens of one model family; cache prices default to the input price. */
export interface TokenPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Prices by model id prefix. */
export type PriceTable = Readonly<Record<string, TokenPrice>>;

/** Token counts of one response, as priced. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

/** Dollars per million tokens for current models, by id prefix. They drift: override with the `prices` config key. */
export const DEFAULT_PRICES: PriceTable = {
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
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  "text-embedding-3-small": { input: 0.02, output: 0 },
  "text-embedding-3-large": { input: 0.13, output: 0 },
};

/**
 * The configured prices over the defaults; later tables win (e.g. `proxy.prices`, then `prices`).
 *
 * @example
 * const table = mergePrices({ "llama3": { input: 0, output: 0 } });
 */
export function mergePrices(...configured: Array<Record<string, TokenPrice> | undefined>): PriceTable {
  return Object.assign({}, DEFAULT_PRICES, ...configured.filter(Boolean));
}

/**
 * The price of a model: the entry with the longest prefix of its id.
 *
 * @example
 * priceOf(DEFAULT_PRICES, "claude-sonnet-4-5-20250929"); // { input: 3, output: 15, ... }
 */
export function priceOf(table: PriceTable, model: string): TokenPrice | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(table)) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * Dollars for one response; an unknown model costs 0 (reported, not guessed).
 *
 * @example
 * costOf(DEFAULT_PRICES, "claude-sonnet-4", { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheCreationTokens: 0 }); // 0.0045
 */
export function costOf(table: PriceTable, model: string, usage: PricedUsage): number {
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
