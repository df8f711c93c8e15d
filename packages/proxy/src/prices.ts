// The price table lives in server-core so the proxy, the runtime's ledger and governance share it.
export { DEFAULT_PRICES, type PriceTable, type MeteredUsage as TokenUsage, costOf, mergePrices, priceOf } from "@conduit-ai/server-core";
