import { z } from "zod";
import { MAX_TOKEN_PRICE } from "./model-prices.js";

/** USD per million tokens (or per use), at most `MAX_TOKEN_PRICE`: a budget counts them in 64-bit integers. */
const usd = z.number().nonnegative().max(MAX_TOKEN_PRICE);

const tierSchema = z.strictObject({
  aboveInputTokens: z.number().int().nonnegative(),
  input: usd,
  output: usd,
  cacheRead: usd.optional(),
  cacheWrite5m: usd.optional(),
  cacheWrite1h: usd.optional(),
});

/**
 * One row of the `prices` config key (USD per million tokens): what `TokenPrice` holds, checked,
 * each bad field named by its path. The earlier `cacheWrite` is accepted as `cacheWrite5m`.
 *
 * @example
 * z.record(z.string(), tokenPriceSchema).parse({ "claude-x": { input: 3, output: 15, tiers: [{ aboveInputTokens: 200000, input: 6, output: 22.5 }] } });
 */
export const tokenPriceSchema = z.strictObject({
  input: usd,
  output: usd,
  cacheRead: usd.optional(),
  cacheWrite5m: usd.optional(),
  cacheWrite1h: usd.optional(),
  cacheWrite: usd.optional(),
  reasoning: usd.optional(),
  tiers: z.array(tierSchema).max(8).optional(),
  perCall: z.strictObject({ webSearch: usd.optional() }).optional(),
  batch: z.number().min(0).max(1).optional(),
  source: z.string().max(500).optional(),
});
