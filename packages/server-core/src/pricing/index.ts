// Money: one usage shape read from every vendor's fields, one price table, one price function in
// integer pico-dollars — what the usage ledger, governance, the proxy's pool and the console share.
export {
  type AnthropicWireUsage,
  type BedrockWireUsage,
  type GeminiWireUsage,
  type MeteredUsage,
  type OpenAIChatWireUsage,
  type OpenAIResponsesWireUsage,
  type TokenCounts,
  anthropicUsageOf,
  emptyUsage,
  openAIChatUsageOf,
  openAIResponsesUsageOf,
  promptTokensOf,
  tokenUsageOf,
  usageFromAnthropic,
  usageFromBedrock,
  usageFromGemini,
  usageFromOpenAIChat,
  usageFromOpenAIResponses,
  usageFromTokenUsage,
} from "./metered-usage.js";
export {
  DEFAULT_PRICES,
  MAX_TOKEN_PRICE,
  type PriceTable,
  type PriceTier,
  type TokenPrice,
  isCountablePrice,
  mergePrices,
  mostExpensivePrice,
  priceOf,
  vendorFamilyOf,
  withVendorMultipliers,
} from "./model-prices.js";
export { tokenPriceSchema } from "./price-schema.js";
export { type CostOptions, PICO_USD_PER_USD, costOf, costPicoUsd, picoUsdOf, savedPicoUsd } from "./usage-cost.js";
