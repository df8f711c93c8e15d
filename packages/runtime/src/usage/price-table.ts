import type { ModelPrice } from "@conduit-ai/server-core";

/**
 * List prices in USD per million tokens (input, output) of the models the runtime knows by
 * default. They drift: override or extend them with `createRuntime({ usage: { prices } })`.
 * Keys are a model name (any provider) or `provider/model` (wins).
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o-mini": { inputPerMillionUsd: 0.15, outputPerMillionUsd: 0.6 },
  "gpt-4o": { inputPerMillionUsd: 2.5, outputPerMillionUsd: 10 },
  "gpt-4.1": { inputPerMillionUsd: 2, outputPerMillionUsd: 8 },
  "gpt-4.1-mini": { inputPerMillionUsd: 0.4, outputPerMillionUsd: 1.6 },
  "gpt-4.1-nano": { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.4 },
  "o4-mini": { inputPerMillionUsd: 1.1, outputPerMillionUsd: 4.4 },
  "text-embedding-3-small": { inputPerMillionUsd: 0.02, outputPerMillionUsd: 0 },
  "text-embedding-3-large": { inputPerMillionUsd: 0.13, outputPerMillionUsd: 0 },
  "claude-opus-4-1": { inputPerMillionUsd: 15, outputPerMillionUsd: 75 },
  "claude-sonnet-4-5": { inputPerMillionUsd: 3, outputPerMillionUsd: 15 },
  "claude-haiku-4-5": { inputPerMillionUsd: 1, outputPerMillionUsd: 5 },
};

/**
 * Prices models from a table: `provider/model` first, then the model name; every model of the
 * offline `local` provider is free.
 *
 * @example
 * const prices = new PriceTable({ "openai/llama3": { inputPerMillionUsd: 0, outputPerMillionUsd: 0 } });
 * prices.costOf("openai", "gpt-4o-mini", 1_000_000, 0); // 0.15
 */
export class PriceTable {
  readonly #prices: Map<string, ModelPrice>;

  constructor(overrides: Record<string, ModelPrice> = {}) {
    this.#prices = new Map(Object.entries({ ...DEFAULT_MODEL_PRICES, ...overrides }));
  }

  priceOf(provider: string, model: string): ModelPrice | undefined {
    if (provider === "local") return { inputPerMillionUsd: 0, outputPerMillionUsd: 0 };
    return this.#prices.get(`${provider}/${model}`) ?? this.#prices.get(model);
  }

  /** USD for a call, or null when the model has no price. */
  costOf(provider: string, model: string, inputTokens: number, outputTokens: number): number | null {
    const price = this.priceOf(provider, model);
    if (price === undefined) return null;
    return (inputTokens * price.inputPerMillionUsd + outputTokens * price.outputPerMillionUsd) / 1_000_000;
  }
}
