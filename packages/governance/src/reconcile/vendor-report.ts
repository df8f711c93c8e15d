import { ServerAdapterError } from "@conduit-ai/server-core";

/** The vendors whose own usage and cost reports Conduit reads. */
export type ReportVendor = "anthropic" | "openai";

/** A provider whose bill can be reconciled: its name in `providers`, its vendor and its admin key. */
export interface ReconcileProvider {
  /** The `providers` name; Conduit's usage events served by it name it first in their target. */
  name: string;
  vendor: ReportVendor;
  /** Anthropic `sk-ant-admin…` (sent as `x-api-key`), OpenAI an admin key (sent as Bearer). */
  adminKey: string;
  /** Where the vendor's API lives: the provider's `baseURL` (a trailing `/v1` is dropped); default the vendor's. */
  baseURL?: string;
}

/** Tokens one vendor reports for one UTC day, model and (where it reports them) API key. */
export interface VendorUsageRow {
  day: string;
  model: string;
  apiKeyId?: string;
  /** Input not read from nor written to a cache. */
  uncachedInputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Dollars one vendor bills for one UTC day and model. */
export interface VendorCostRow {
  day: string;
  model: string;
  usd: number;
}

/** What a vendor's admin API reported for a range of days. */
export interface VendorReport {
  usage: VendorUsageRow[];
  costs: VendorCostRow[];
}

/** The vendor's report could not be read: its status and message, never the admin key. */
export function vendorReportFailed(provider: string, message: string, status?: number): ServerAdapterError {
  return new ServerAdapterError(`Provider "${provider}": ${message}`, {
    code: "VENDOR_REPORT_FAILED",
    statusCode: 502,
    category: "EXTERNAL",
    details: { provider, ...(status !== undefined ? { vendorStatus: status } : {}) },
  });
}

/** The UTC day (`YYYY-MM-DD`) of an RFC 3339 time or of epoch seconds. */
export function dayOf(time: string | number): string {
  return new Date(typeof time === "number" ? time * 1000 : time).toISOString().slice(0, 10);
}
