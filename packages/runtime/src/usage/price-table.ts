import { DEFAULT_PRICES, type ModelPrice, type TokenPrice, type TokenUsage, mergePrices, priceOf } from "@conduit-ai/server-core";
import { PICO_USD_PER_USD, costPicoUsd, usageFromTokenUsage, withVendorMultipliers } from "@conduit-ai/server-core/pricing";

/**
 * The server's one price table (server-core's `DEFAULT_PRICES`), in the runtime's
 * `ModelPrice` shape. Kept as an export for code that read it; the source of truth is
 * server-core, shared with the proxy's pool and governance's budgets.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.fromEntries(
  Object.entries(DEFAULT_PRICES).map(([model, price]) => [model, toModelPrice(price)]),
);

/** An override in either shape: the server's `{input, output}` (the `prices` config key) or the runtime's. */
export type PriceOverride = TokenPrice | ModelPrice;

/**
 * Prices the runtime's calls from the server's one table (server-core's `DEFAULT_PRICES` with
 * the `prices` config key over it), so the usage ledger, the proxy and governance charge the
 * same dollar. A `provider/model` key wins; otherwise the longest model id prefix, as everywhere
 * else. Every model of the offline `local` provider is free.
 *
 * @example
 * const prices = new PriceTable({ "openai/llama3": { input: 0, output: 0 } });
 * prices.costOf("openai", "gpt-4o-mini", { inputTokens: 1_000_000, outputTokens: 0 }); // 0.15
 */
export class PriceTable {
  readonly #byModelPrefix: Readonly<Record<string, TokenPrice>>;
  readonly #byProviderModel = new Map<string, TokenPrice>();

  constructor(overrides: Record<string, PriceOverride> = {}) {
    const byModel: Record<string, TokenPrice> = {};
    for (const [key, price] of Object.entries(overrides)) {
      if (key.includes("/")) this.#byProviderModel.set(key, withVendorMultipliers(key, toTokenPrice(price)));
      else byModel[key] = toTokenPrice(price);
    }
    this.#byModelPrefix = mergePrices(byModel);
  }

  priceOf(provider: string, model: string): ModelPrice | undefined {
    if (provider === "local") return { inputPerMillionUsd: 0, outputPerMillionUsd: 0 };
    const price = this.#byProviderModel.get(`${provider}/${model}`) ?? priceOf(this.#byModelPrefix, model);
    return price && toModelPrice(price);
  }

  /** The whole row of a model (cache, reasoning, tier and per-use prices), as the price function takes it. */
  tokenPriceOf(provider: string, model: string): TokenPrice | undefined {
    if (provider === "local") return { input: 0, output: 0 };
    return this.#byProviderModel.get(`${provider}/${model}`) ?? priceOf(this.#byModelPrefix, model);
  }

  /**
   * USD for a call by server-core's one price function (cache reads and writes, reasoning, tiers
   * priced as everywhere else), or null when the model has no price.
   */
  costOf(provider: string, model: string, usage: Pick<TokenUsage, "inputTokens" | "outputTokens"> & Partial<TokenUsage>): number | null {
    const price = this.tokenPriceOf(provider, model);
    if (price === undefined) return null;
    return costPicoUsd(price, usageFromTokenUsage({ totalTokens: 0, ...usage })) / PICO_USD_PER_USD;
  }
}

function toModelPrice(price: TokenPrice): ModelPrice {
  return { inputPerMillionUsd: price.input, outputPerMillionUsd: price.output };
}

function toTokenPrice(price: PriceOverride): TokenPrice {
  return "inputPerMillionUsd" in price ? { input: price.inputPerMillionUsd, output: price.outputPerMillionUsd } : price;
}
