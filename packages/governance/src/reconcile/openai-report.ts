import { type ReportFetchOptions, apiOrigin, reportPages } from "./report-pages.js";
import { type ReconcileProvider, type VendorCostRow, type VendorReport, type VendorUsageRow, dayOf } from "./vendor-report.js";

/** One result of a `usage/completions` bucket grouped by model and API key. */
interface CompletionsUsageResult {
  model?: string | null;
  api_key_id?: string | null;
  /** Includes the cached tokens. */
  input_tokens?: number;
  input_cached_tokens?: number;
  output_tokens?: number;
}

/** One result of a `costs` bucket grouped by line item (`"<model>, input"`). */
interface CostsResult {
  amount?: { value?: number; currency?: string };
  line_item?: string | null;
}

interface Bucket<Result> {
  start_time: number;
  results?: Result[];
}

const count = (value: number | undefined) => (Number.isFinite(value) ? Number(value) : 0);

/** The model a cost line item names: `"gpt-4o-mini-2024-07-18, input"` → `gpt-4o-mini-2024-07-18`. */
export function modelOfLineItem(lineItem: string | null | undefined): string {
  if (!lineItem) return "";
  const comma = lineItem.lastIndexOf(", ");
  return comma === -1 ? lineItem : lineItem.slice(0, comma);
}

/**
 * OpenAI's organization reports for `[fromDay, toDay]` (UTC days, both included): tokens per day,
 * model and API key (`GET /v1/organization/usage/completions`) and dollars per day and line item
 * (`GET /v1/organization/costs`), every page, with the admin key as Bearer.
 *
 * @example
 * const report = await openaiReport({ name: "openai", vendor: "openai", adminKey }, "2026-12-01", "2026-12-07");
 */
export async function openaiReport(
  provider: ReconcileProvider,
  fromDay: string,
  toDay: string,
  options: ReportFetchOptions = {},
): Promise<VendorReport> {
  const origin = apiOrigin(provider.baseURL, "https://api.openai.com");
  const headers = { authorization: `Bearer ${provider.adminKey}` };
  const startTime = Date.parse(`${fromDay}T00:00:00Z`) / 1000;
  const endTime = Date.parse(`${toDay}T00:00:00Z`) / 1000 + 86_400;
  const range = (path: string, limit: number) => {
    const url = new URL(`${origin}${path}`);
    url.searchParams.set("start_time", String(startTime));
    url.searchParams.set("end_time", String(endTime));
    url.searchParams.set("bucket_width", "1d");
    url.searchParams.set("limit", String(limit));
    return url;
  };
  const usageUrl = range("/v1/organization/usage/completions", 31);
  usageUrl.searchParams.append("group_by[]", "model");
  usageUrl.searchParams.append("group_by[]", "api_key_id");
  const usage: VendorUsageRow[] = [];
  for await (const page of reportPages(provider.name, usageUrl, headers, options))
    for (const bucket of page.data as Bucket<CompletionsUsageResult>[])
      for (const result of bucket.results ?? []) {
        const cached = count(result.input_cached_tokens);
        usage.push({
          day: dayOf(bucket.start_time),
          model: result.model ?? "",
          ...(result.api_key_id ? { apiKeyId: result.api_key_id } : {}),
          uncachedInputTokens: Math.max(0, count(result.input_tokens) - cached),
          outputTokens: count(result.output_tokens),
          cacheReadTokens: cached,
          cacheWriteTokens: 0,
        });
      }
  const costUrl = range("/v1/organization/costs", 180);
  costUrl.searchParams.append("group_by[]", "line_item");
  const costs: VendorCostRow[] = [];
  for await (const page of reportPages(provider.name, costUrl, headers, options))
    for (const bucket of page.data as Bucket<CostsResult>[])
      for (const result of bucket.results ?? [])
        costs.push({ day: dayOf(bucket.start_time), model: modelOfLineItem(result.line_item), usd: count(result.amount?.value) });
  return { usage, costs };
}
