import { BoundedCache } from "@conduit-ai/server-core/internal";
import { type PriceTable, type TokenPrice, mostExpensivePrice, priceOf, vendorFamilyOf } from "@conduit-ai/server-core";
import { picoUsdOf } from "@conduit-ai/server-core/pricing";

/** What a model without a row in the price table costs (`keys.unpricedModels`). */
export type UnpricedModelPolicy = "refuse" | "estimate" | "allow";

/** The price a reservation is made at, and the model it found no price for (policy `refuse`). */
export interface ReservationPrice {
  price: TokenPrice;
  picoUsd: number;
  unpricedModel?: string;
}

const FREE: TokenPrice = { input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0 };

/**
 * Prices for the gate: the reservation at the dearest model a call may reach, the settlement at
 * the model that served, and one policy for models the table does not price. Lookups are cached
 * per model name (the table is fixed for the gate's life); one warning per unpriced model.
 *
 * @example
 * const pricing = new ModelPricing(prices, "refuse", console.warn);
 * pricing.forReservation(["anthropic/claude-haiku-4-5", "anthropic/claude-opus-4"], 900, 1024).price; // opus-4's
 */
export class ModelPricing {
  readonly #table: PriceTable;
  readonly #policy: UnpricedModelPolicy;
  readonly #warn: (message: string) => void;
  readonly #prices = new BoundedCache<TokenPrice | null>({ maxEntries: 10_000 });
  /** Unpriced models seen: their price under the policy (each warned about once while remembered). */
  readonly #unpricedSeen = new BoundedCache<TokenPrice>({ maxEntries: 10_000 });
  /** What a call naming no model is reserved at: it may reach any model the table prices. */
  readonly #anyModel: TokenPrice;

  constructor(table: PriceTable, policy: UnpricedModelPolicy, warn: (message: string) => void = () => {}) {
    this.#table = table;
    this.#policy = policy;
    this.#warn = warn;
    this.#anyModel = mostExpensivePrice(table) ?? FREE;
  }

  get policy(): UnpricedModelPolicy {
    return this.#policy;
  }

  /** The table's price of a model (longest prefix, then the model part of `<provider>/<model>`), or undefined. */
  lookup(model: string): TokenPrice | undefined {
    const cached = this.#prices.get(model);
    if (cached !== undefined) return cached ?? undefined;
    const price = priceOf(this.#table, model);
    this.#prices.set(model, price ?? null);
    return price;
  }

  /**
   * The reservation's price: the dearest of `models` for this many tokens (none named: the
   * dearest of the table). An unpriced one is estimated, free, or — policy `refuse` — free but
   * named, so the store refuses it to a key or team with a budget.
   */
  forReservation(models: readonly string[] | undefined, inputTokens: number, outputTokens: number): ReservationPrice {
    const cost = (price: TokenPrice) => picoUsdOf(inputTokens, price.input) + picoUsdOf(outputTokens, price.output);
    if (!models || models.length === 0) return { price: this.#anyModel, picoUsd: cost(this.#anyModel) };
    let best: ReservationPrice | undefined;
    let unpricedModel: string | undefined;
    for (const model of models) {
      let price = this.lookup(model);
      if (!price) {
        price = this.#unpriced(model);
        if (this.#policy === "refuse") unpricedModel ??= model;
      }
      const pico = cost(price);
      if (!best || pico > best.picoUsd) best = { price, picoUsd: pico };
    }
    return { ...(best as ReservationPrice), ...(unpricedModel !== undefined ? { unpricedModel } : {}) };
  }

  /**
   * The price the served model settles at. Unpriced: the reservation's price when the name is one
   * the call was admitted for (an alias, `unknown` from a stream that never said), else as the
   * policy says — `allow` free, `estimate` its vendor's dearest, `refuse` the reservation's price
   * (the call was admitted at it, so the budget still binds).
   */
  forSettlement(served: string, reserved: TokenPrice, admittedFor: readonly string[]): TokenPrice {
    const price = this.lookup(served);
    if (price) return price;
    if (served === "unknown" || admittedFor.includes(served)) return reserved;
    const unpriced = this.#unpriced(served);
    return this.#policy === "refuse" ? reserved : unpriced;
  }

  /** An unpriced model's price under the policy (`refuse`: free until the store decides), warned about once. */
  #unpriced(model: string): TokenPrice {
    const seen = this.#unpricedSeen.get(model);
    if (seen) return seen;
    const estimate = this.#policy === "estimate" ? (mostExpensivePrice(this.#table, vendorFamilyOf(model)) ?? this.#anyModel) : FREE;
    this.#unpricedSeen.set(model, estimate);
    const treatment =
      this.#policy === "estimate"
        ? `it is priced as the dearest ${vendorFamilyOf(model)} model (input $${estimate.input}, output $${estimate.output} per million tokens)`
        : this.#policy === "allow"
          ? "it runs free of every budget"
          : "keys and teams with a budget are refused it (403)";
    this.#warn(
      `governance: model "${model}" has no price: add it under "prices" (USD per million tokens); until then ${treatment} (keys.unpricedModels: "${this.#policy}")`,
    );
    return estimate;
  }
}
