/**
 * One price table for the whole server: the proxy's account pool, the runtime's usage ledger and
 * governance's budgets all read it, and `costPicoUsd` (./usage-cost.ts) prices every call with
 * it, so a dollar means the same everywhere. Prices are USD per million tokens, keyed by model id
 * prefix (the longest matching prefix wins).
 */
import type { PriceTable, TokenPrice } from "./token-price.js";
import { ANTHROPIC_PRICES, OPENAI_PRICES } from "./vendor-prices.js";

export type { PriceTable, PriceTier, TokenPrice } from "./token-price.js";

/** Dollars per million tokens for current models, by id prefix. They drift: override with the `prices` config key. */
export const DEFAULT_PRICES: PriceTable = {
  ...ANTHROPIC_PRICES,
  ...OPENAI_PRICES,
  // Gemini API: https://ai.google.dev/gemini-api/docs/pricing (standard tier, prompts ≤ 200k tokens; read 2025-10 —
  // this workplace has no web access, re-check before relying on them). Vertex AI lists the same for Gemini models.
  "gemini-2.5-pro": { input: 1.25, output: 10, cacheRead: 0.125 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.03 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.01 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gemini-2.0-flash-lite": { input: 0.075, output: 0.3 },
  "gemini-embedding-001": { input: 0.15, output: 0 },
  "text-embedding-005": { input: 0.025, output: 0 },
  // Amazon Bedrock on-demand, us-east-1: https://aws.amazon.com/bedrock/pricing/ (read 2025-10). Cross-region
  // inference profiles (`us.…`, `eu.…`, `global.…`) have ids of their own: price them with the `prices` key.
  "anthropic.claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75 },
  "anthropic.claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite5m: 1.25 },
  "anthropic.claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite5m: 18.75 },
  "amazon.nova-pro": { input: 0.8, output: 3.2, cacheRead: 0.2 },
  "amazon.nova-lite": { input: 0.06, output: 0.24, cacheRead: 0.015 },
  "amazon.nova-micro": { input: 0.035, output: 0.14, cacheRead: 0.00875 },
  "meta.llama3-3-70b-instruct": { input: 0.72, output: 0.72 },
  "mistral.mistral-large-2407": { input: 2, output: 6 },
  "amazon.titan-embed-text-v2": { input: 0.02, output: 0 },
  "cohere.embed-english-v3": { input: 0.1, output: 0 },
  // Mistral La Plateforme: https://mistral.ai/pricing#api-pricing (read 2025-10).
  "mistral-large": { input: 2, output: 6 },
  "mistral-medium": { input: 0.4, output: 2 },
  "mistral-small": { input: 0.1, output: 0.3 },
  codestral: { input: 0.3, output: 0.9 },
  "magistral-medium": { input: 2, output: 5 },
  "magistral-small": { input: 0.5, output: 1.5 },
  "ministral-8b": { input: 0.1, output: 0.1 },
  "ministral-3b": { input: 0.04, output: 0.04 },
  "mistral-embed": { input: 0.1, output: 0 },
  // Cohere: https://cohere.com/pricing (read 2025-10).
  "command-a": { input: 2.5, output: 10 },
  "command-r-plus": { input: 2.5, output: 10 },
  "command-r7b": { input: 0.0375, output: 0.15 },
  "command-r": { input: 0.15, output: 0.6 },
  "embed-v4.0": { input: 0.12, output: 0 },
  "embed-english-v3.0": { input: 0.1, output: 0 },
  "embed-multilingual-v3.0": { input: 0.1, output: 0 },
  // xAI: https://docs.x.ai/docs/models (read 2025-10).
  "grok-4": { input: 3, output: 15, cacheRead: 0.75 },
  "grok-4-fast": { input: 0.2, output: 0.5, cacheRead: 0.05 },
  "grok-code-fast-1": { input: 0.2, output: 1.5, cacheRead: 0.02 },
  "grok-3": { input: 3, output: 15, cacheRead: 0.75 },
  "grok-3-mini": { input: 0.3, output: 0.5, cacheRead: 0.075 },
  // Groq: https://groq.com/pricing (read 2025-10); ids as Groq names them.
  "llama-3.3-70b-versatile": { input: 0.59, output: 0.79 },
  "llama-3.1-8b-instant": { input: 0.05, output: 0.08 },
  "openai/gpt-oss-120b": { input: 0.15, output: 0.75 },
  "openai/gpt-oss-20b": { input: 0.1, output: 0.5 },
  "moonshotai/kimi-k2-instruct": { input: 1, output: 3 },
  // DeepSeek: https://api-docs.deepseek.com/quick_start/pricing (read 2025-10: V3.2, one price for both ids; a cache hit is `cacheRead`).
  "deepseek-chat": { input: 0.28, output: 0.42, cacheRead: 0.028 },
  "deepseek-reasoner": { input: 0.28, output: 0.42, cacheRead: 0.028 },
  // The runtime's offline provider (`local`: text model `echo`, embeddings `hashed-ngram-256`) runs on this machine: free.
  local: { input: 0, output: 0 },
  echo: { input: 0, output: 0 },
  "hashed-ngram-256": { input: 0, output: 0 },
};

/**
 * The highest price a table may hold (USD per million tokens, each of input, output, cache read
 * and cache write): 100 times today's dearest model. Budgets count pico-dollars in 64-bit
 * integers; an unbounded price (1e308) would overflow them.
 */
export const MAX_TOKEN_PRICE = 10_000;

/** Every figure of a row a budget counts: token prices, tier prices and per-use prices. */
function figuresOf(price: TokenPrice): unknown[] {
  const tokens = [price.input, price.output, price.cacheRead, price.cacheWrite5m, price.cacheWrite1h, price.cacheWrite, price.reasoning];
  const tiers = (price.tiers ?? []).flatMap((tier) => [tier.input, tier.output, tier.cacheRead, tier.cacheWrite5m, tier.cacheWrite1h]);
  return [...tokens, ...tiers, price.perCall?.webSearch].filter((value) => value !== undefined);
}

/**
 * Whether a price is one the server can count: every figure (tiers and per-use prices included)
 * finite, ≥ 0 and ≤ `MAX_TOKEN_PRICE`; a `batch` factor from 0 to 1.
 */
export function isCountablePrice(price: TokenPrice): boolean {
  const batch = price.batch ?? 1;
  return (
    figuresOf(price).every((value) => typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_TOKEN_PRICE) &&
    typeof batch === "number" &&
    batch >= 0 &&
    batch <= 1
  );
}

/**
 * A row with the vendor's cache multipliers filled in where it names none: a configured
 * `{ "claude-x": { input: 3, output: 15 } }` reads at 0.3, writes at 3.75 (5 minutes) and 6
 * (1 hour), as Anthropic bills it. The earlier `cacheWrite` key is read as `cacheWrite5m`.
 */
export function withVendorMultipliers(model: string, price: TokenPrice): TokenPrice {
  const { cacheWrite, ...row } = price;
  if (row.cacheWrite5m === undefined && cacheWrite !== undefined) row.cacheWrite5m = cacheWrite;
  if (vendorFamilyOf(model) !== "anthropic" && !model.includes("claude")) return row;
  const usd = (value: number) => Math.round(value * 1e6) / 1e6;
  row.cacheRead ??= usd(row.input * 0.1);
  row.cacheWrite5m ??= usd(row.input * 1.25);
  row.cacheWrite1h ??= usd(row.input * 2);
  return row;
}

/**
 * The configured prices over the defaults; later tables win (e.g. `proxy.prices`, then `prices`),
 * each row completed by `withVendorMultipliers`. A price outside `[0, MAX_TOKEN_PRICE]` throws a
 * `RangeError` naming the model (the config schemas refuse it first, with the field's path).
 *
 * @example
 * const table = mergePrices({ "llama3": { input: 0, output: 0 } });
 */
export function mergePrices(...configured: Array<Record<string, TokenPrice> | undefined>): PriceTable {
  const merged: Record<string, TokenPrice> = { ...DEFAULT_PRICES };
  for (const table of configured)
    for (const [model, price] of Object.entries(table ?? {})) {
      if (!isCountablePrice(price)) throw new RangeError(`prices.${model}: every price is a number from 0 to ${MAX_TOKEN_PRICE}`);
      merged[model] = withVendorMultipliers(model, price);
    }
  return merged;
}

/**
 * The price of a model: the entry with the longest prefix of its id. A routed id
 * (`<provider>/<model>`, `anthropic/claude-haiku-4-5`) not in the table by its full name is
 * looked up by the model part. Undefined means unpriced: the caller decides (governance refuses,
 * estimates or allows it, see `keys.unpricedModels`); it is never silently 0 here.
 *
 * @example
 * priceOf(DEFAULT_PRICES, "claude-sonnet-4-5-20250929"); // { input: 3, output: 15, ... }
 * priceOf(DEFAULT_PRICES, "claude-future-9"); // undefined
 */
export function priceOf(table: PriceTable, model: string): TokenPrice | undefined {
  const found = longestPrefix(table, model);
  if (found !== undefined) return table[found];
  const slash = model.indexOf("/");
  if (slash <= 0) return undefined;
  const routed = longestPrefix(table, model.slice(slash + 1));
  return routed === undefined ? undefined : table[routed];
}

function longestPrefix(table: PriceTable, model: string): string | undefined {
  let best: string | undefined;
  for (const prefix in table) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best;
}

/**
 * The vendor family of a model id, by its name: `claude…` is Anthropic's, `gpt…`, `o1…`/`o3…`/
 * `o4…`, `chatgpt…`, `codex…` and `text-embedding…` are OpenAI's; anything else is named by its
 * first word (`gemini-2.5-pro` → `gemini`). A `<provider>/` prefix is ignored.
 *
 * @example
 * vendorFamilyOf("claude-future-9"); // "anthropic"
 */
export function vendorFamilyOf(model: string): string {
  const name = model.slice(model.indexOf("/") + 1).toLowerCase();
  if (name.startsWith("claude")) return "anthropic";
  if (/^(gpt|o\d|chatgpt|codex|text-embedding|davinci|babbage)/.test(name)) return "openai";
  return /^[a-z0-9]+/.exec(name)?.[0] ?? name;
}

/**
 * The dearest price of a table (by output, then input), or of the models of one vendor family
 * (`vendorFamilyOf`): what a model with no row of its own is estimated at.
 *
 * @example
 * mostExpensivePrice(DEFAULT_PRICES, "anthropic"); // claude-opus-4's { input: 15, output: 75, ... }
 */
export function mostExpensivePrice(table: PriceTable, family?: string): TokenPrice | undefined {
  let best: TokenPrice | undefined;
  for (const prefix in table) {
    const price = table[prefix] as TokenPrice;
    if (family !== undefined && vendorFamilyOf(prefix) !== family) continue;
    if (!best || price.output > best.output || (price.output === best.output && price.input > best.input)) best = price;
  }
  return best;
}
