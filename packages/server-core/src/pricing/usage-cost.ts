import { type MeteredUsage, promptTokensOf } from "./metered-usage.js";
import { priceOf } from "./model-prices.js";
import type { PriceTable, PriceTier, TokenPrice } from "./token-price.js";

/** Pico-dollars (1e-12 USD) in one dollar: money is counted in integers of them, so sums are exact. */
export const PICO_USD_PER_USD = 1_000_000_000_000;

/**
 * Pico-dollars per token at a price in USD per million tokens (1e-12 USD × 1e6 / 1e6): an integer
 * for any price with up to six decimals, so a token count times it is exact.
 */
function picoPerToken(usdPerMillion: number): number {
  return Math.round(usdPerMillion * 1e6);
}

/**
 * Pico-dollars of a token count at a price in USD per million tokens (integers, so Redis adds
 * them exactly).
 *
 * @example
 * picoUsdOf(1000, 3); // 3_000_000_000 (three tenths of a cent)
 */
export function picoUsdOf(tokens: number, usdPerMillion: number | undefined): number {
  return tokens * picoPerToken(usdPerMillion ?? 0);
}

/** The per-token prices a call pays: the row's, or its long-context tier's when the call's input passed it. */
interface EffectivePrice {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

function effectivePrice(price: TokenPrice, promptTokens: number): EffectivePrice {
  const cacheWrite5m = price.cacheWrite5m ?? price.cacheWrite ?? price.input;
  const base: EffectivePrice = {
    input: price.input,
    output: price.output,
    reasoning: price.reasoning ?? price.output,
    cacheRead: price.cacheRead ?? price.input,
    cacheWrite5m,
    cacheWrite1h: price.cacheWrite1h ?? cacheWrite5m,
  };
  let tier: PriceTier | undefined;
  for (const candidate of price.tiers ?? [])
    if (promptTokens > candidate.aboveInputTokens && (!tier || candidate.aboveInputTokens > tier.aboveInputTokens)) tier = candidate;
  if (!tier) return base;
  // A tier names its input and output prices; cache and reasoning prices move with them.
  const inputScale = price.input > 0 ? tier.input / price.input : 1;
  const outputScale = price.output > 0 ? tier.output / price.output : 1;
  return {
    input: tier.input,
    output: tier.output,
    reasoning: base.reasoning * outputScale,
    cacheRead: tier.cacheRead ?? base.cacheRead * inputScale,
    cacheWrite5m: tier.cacheWrite5m ?? base.cacheWrite5m * inputScale,
    cacheWrite1h: tier.cacheWrite1h ?? base.cacheWrite1h * inputScale,
  };
}

export interface CostOptions {
  /** A batch call: the row's `batch` factor applies (per-use tool fees are not discounted). */
  batch?: boolean;
}

/**
 * What a call costs, in integer pico-dollars: Σ each usage field × its price (reasoning tokens at
 * `reasoning`, the rest of the output at `output`), past a long-context tier at the tier's prices,
 * plus per-use server-tool fees. The one price function of the server: the usage ledger,
 * governance's budgets, the proxy's pool and the console's figures all come from it.
 *
 * @example
 * costPicoUsd({ input: 3, output: 15, cacheRead: 0.3 }, { ...emptyUsage(), input: 1000, cacheRead: 9000, output: 100 });
 * // 3_000_000_000 + 2_700_000_000 + 1_500_000_000 = 7_200_000_000 ($0.0072)
 */
export function costPicoUsd(price: TokenPrice, usage: MeteredUsage, options: CostOptions = {}): number {
  const effective = effectivePrice(price, promptTokensOf(usage));
  const reasoning = Math.min(usage.reasoning, usage.output);
  const tokens =
    picoUsdOf(usage.input, effective.input) +
    picoUsdOf(usage.output - reasoning, effective.output) +
    picoUsdOf(reasoning, effective.reasoning) +
    picoUsdOf(usage.cacheRead, effective.cacheRead) +
    picoUsdOf(usage.cacheWrite5m, effective.cacheWrite5m) +
    picoUsdOf(usage.cacheWrite1h, effective.cacheWrite1h);
  const discounted = options.batch ? Math.round(tokens * (price.batch ?? 1)) : tokens;
  const tools = Math.round((usage.serverTools.webSearch ?? 0) * (price.perCall?.webSearch ?? 0) * PICO_USD_PER_USD);
  return Math.min(discounted + tools, Number.MAX_SAFE_INTEGER);
}

/**
 * What the call's cache reads saved against the full input price, in pico-dollars (0 when the
 * row prices cache reads at input).
 *
 * @example
 * savedPicoUsd({ input: 3, output: 15, cacheRead: 0.3 }, { ...emptyUsage(), cacheRead: 1_000_000 }); // $2.70
 */
export function savedPicoUsd(price: TokenPrice, usage: MeteredUsage): number {
  const effective = effectivePrice(price, promptTokensOf(usage));
  return Math.max(0, picoUsdOf(usage.cacheRead, effective.input) - picoUsdOf(usage.cacheRead, effective.cacheRead));
}

/**
 * Dollars for one call by the table's row for its model; an unpriced model costs 0 here (the
 * usage ledger reports it as such). Governance does not use this for budgets: it refuses or
 * estimates unpriced models, then prices with `costPicoUsd`.
 *
 * @example
 * costOf(DEFAULT_PRICES, "claude-sonnet-4", { ...emptyUsage(), input: 1000, output: 100 }); // 0.0045
 */
export function costOf(table: PriceTable, model: string, usage: MeteredUsage): number {
  const price = priceOf(table, model);
  return price ? costPicoUsd(price, usage) / PICO_USD_PER_USD : 0;
}
