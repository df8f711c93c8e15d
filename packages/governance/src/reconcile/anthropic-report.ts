import { type ReportFetchOptions, apiOrigin, reportPages } from "./report-pages.js";
import { type ReconcileProvider, type VendorCostRow, type VendorReport, type VendorUsageRow, dayOf } from "./vendor-report.js";

/** One result of a `usage_report/messages` bucket grouped by model and API key. */
interface MessagesUsageResult {
  model?: string | null;
  api_key_id?: string | null;
  uncached_input_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
  output_tokens?: number;
}

/** One result of a `cost_report` bucket grouped by description (which names the model). */
interface CostResult {
  model?: string | null;
  /** In the currency's lowest unit (cents), as a decimal string. */
  amount?: string;
  currency?: string;
}

interface Bucket<Result> {
  starting_at: string;
  results?: Result[];
}

const count = (value: number | undefined) => (Number.isFinite(value) ? Number(value) : 0);

/**
 * Anthropic's Admin API reports for `[fromDay, toDay]` (UTC days, both included): tokens per day,
 * model and API key (`GET /v1/organizations/usage_report/messages`) and dollars per day and model
 * (`GET /v1/organizations/cost_report`, amounts in cents), every page.
 *
 * @example
 * const report = await anthropicReport({ name: "anthropic", vendor: "anthropic", adminKey }, "2026-12-01", "2026-12-07");
 */
export async function anthropicReport(
  provider: ReconcileProvider,
  fromDay: string,
  toDay: string,
  options: ReportFetchOptions = {},
): Promise<VendorReport> {
  const origin = apiOrigin(provider.baseURL, "https://api.anthropic.com");
  const headers = { "x-api-key": provider.adminKey, "anthropic-version": "2023-06-01" };
  const endingAt = new Date(Date.parse(`${toDay}T00:00:00Z`) + 86_400_000).toISOString();
  const range = (path: string) => {
    const url = new URL(`${origin}${path}`);
    url.searchParams.set("starting_at", `${fromDay}T00:00:00Z`);
    url.searchParams.set("ending_at", endingAt);
    url.searchParams.set("bucket_width", "1d");
    url.searchParams.set("limit", "31");
    return url;
  };
  const usageUrl = range("/v1/organizations/usage_report/messages");
  usageUrl.searchParams.append("group_by[]", "model");
  usageUrl.searchParams.append("group_by[]", "api_key_id");
  const usage: VendorUsageRow[] = [];
  for await (const page of reportPages(provider.name, usageUrl, headers, options))
    for (const bucket of page.data as Bucket<MessagesUsageResult>[])
      for (const result of bucket.results ?? [])
        usage.push({
          day: dayOf(bucket.starting_at),
          model: result.model ?? "",
          ...(result.api_key_id ? { apiKeyId: result.api_key_id } : {}),
          uncachedInputTokens: count(result.uncached_input_tokens),
          outputTokens: count(result.output_tokens),
          cacheReadTokens: count(result.cache_read_input_tokens),
          cacheWriteTokens:
            count(result.cache_creation?.ephemeral_5m_input_tokens) + count(result.cache_creation?.ephemeral_1h_input_tokens),
        });
  const costUrl = range("/v1/organizations/cost_report");
  costUrl.searchParams.append("group_by[]", "description");
  const costs: VendorCostRow[] = [];
  for await (const page of reportPages(provider.name, costUrl, headers, options))
    for (const bucket of page.data as Bucket<CostResult>[])
      for (const result of bucket.results ?? [])
        costs.push({ day: dayOf(bucket.starting_at), model: result.model ?? "", usd: Number(result.amount ?? 0) / 100 });
  return { usage, costs };
}
