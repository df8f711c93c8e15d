/** Long-context pricing: past this many input tokens (cache reads and writes included) every token costs these. */
export interface PriceTier {
  aboveInputTokens: number;
  input: number;
  output: number;
  /** Default: the row's cache price scaled like `input`. */
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
}

/**
 * USD per million tokens of one model family. Absent cache prices follow the vendor's multipliers
 * (Anthropic: read 0.1×, 5-minute write 1.25×, 1-hour write 2× input; others: the input price);
 * `reasoning` defaults to `output`.
 */
export interface TokenPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** The earlier name of `cacheWrite5m`, still accepted. */
  cacheWrite?: number;
  reasoning?: number;
  tiers?: PriceTier[];
  /** USD per use of a tool the vendor runs (`webSearch`: one search). */
  perCall?: { webSearch?: number };
  /** What a batch call costs as a share of the price (Anthropic and OpenAI: 0.5). */
  batch?: number;
  /** Where the row comes from: the vendor's pricing page and the date it was read. */
  source?: string;
}

/** Prices by model id prefix. */
export type PriceTable = Readonly<Record<string, TokenPrice>>;
