import { type TokenPrice, formatZodIssues, summarizeIssues } from "@conduit-ai/server-core";
import { tokenPriceSchema } from "@conduit-ai/server-core/pricing";
import { z } from "zod";
import { UsageError } from "./usage-error.js";

const pricesSchema = z.record(z.string().min(1), tokenPriceSchema);

/**
 * The server's one price table as the config file sets it: `proxy.prices` (still honoured), then
 * the top-level `prices` key, over server-core's defaults (merged by each reader). The proxy's
 * pool, the runtime's usage ledger and governance's budgets all get this, so a dollar is the
 * same dollar everywhere.
 *
 * @example
 * serverPrices({ prices: { "llama3": { input: 0, output: 0 } } }); // { llama3: { input: 0, output: 0 } }
 */
export function serverPrices(file: { readonly [key: string]: unknown }): Record<string, TokenPrice> {
  const proxyPrices = (file.proxy as { prices?: unknown } | undefined)?.prices;
  return { ...read(proxyPrices, "proxy.prices"), ...read(file.prices, "prices") };
}

function read(value: unknown, root: string): Record<string, TokenPrice> {
  if (value === undefined) return {};
  const parsed = pricesSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`Config file: ${summarizeIssues(formatZodIssues(parsed.error, { root }))}`);
}
