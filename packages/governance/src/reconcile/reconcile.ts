import type { DailyUsageRow } from "../usage/usage-event.js";
import { anthropicReport } from "./anthropic-report.js";
import { openaiReport } from "./openai-report.js";
import type { ReportFetchOptions } from "./report-pages.js";
import type { ReconcileProvider, VendorReport } from "./vendor-report.js";

/** Tokens and dollars of one side of a reconciliation row. */
export interface ReconcileFigures {
  /** Every input token: uncached, read from a cache and written to one. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  usd: number;
}

/** One UTC day × model: Conduit's figures beside the vendor's and what differs (vendor − Conduit). */
export interface ReconcileRow {
  day: string;
  model: string;
  conduit: ReconcileFigures & { requests: number };
  /** Null when the vendor reported nothing for this day and model. */
  vendor: (ReconcileFigures & { apiKeys: Array<{ id: string; inputTokens: number; outputTokens: number }> }) | null;
  drift: { inputTokens: number; outputTokens: number; tokens: number; usd: number };
  /** `match`; `drift`; `missing-at-vendor` (Conduit saw traffic the vendor did not report); `unseen-by-conduit` (the reverse). */
  status: "match" | "drift" | "missing-at-vendor" | "unseen-by-conduit";
}

/** What `GET /admin/reconcile` and `conduit reconcile --json` answer. */
export interface ReconcileReport {
  provider: string;
  vendor: ReconcileProvider["vendor"];
  from: string;
  to: string;
  /** Dollar differences at most this large count as a match (rounding on the vendor's side). */
  usdTolerance: number;
  rows: ReconcileRow[];
  totals: { conduitUsd: number; vendorUsd: number; driftUsd: number; driftTokens: number; driftingRows: number };
}

export interface ReconcileOptions extends ReportFetchOptions {
  /** Default 0.000001 (a millionth of a dollar). */
  usdTolerance?: number;
  /** The vendor's report instead of reading it (tests). */
  report?: (provider: ReconcileProvider, fromDay: string, toDay: string, options: ReportFetchOptions) => Promise<VendorReport>;
}

const emptyFigures = (): ReconcileFigures => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, usd: 0 });

/** A dollar figure without float dust (12 decimals: Conduit counts in pico-dollars). */
const dollars = (value: number) => Math.round(value * 1e12) / 1e12;

/**
 * The model a usage row served on `provider`, or undefined when another provider served it:
 * targets `<provider>/<model>` (the Anthropic pool is `anthropic`), `runtime/<provider>/<model>`.
 */
export function modelServedBy(provider: string, target: string): string | undefined {
  const bare = target.startsWith("runtime/") ? target.slice("runtime/".length) : target;
  if (!bare.startsWith(`${provider}/`)) return undefined;
  const model = bare.slice(provider.length + 1);
  return model.startsWith(`${provider}/`) ? model.slice(provider.length + 1) : model;
}

/** `YYYY-MM-DD` after `day`. */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * Conduit's usage rows and a vendor's report side by side per UTC day × model. A day and model
 * one side has and the other lacks is drift too: traffic the vendor never billed is as wrong as
 * traffic Conduit never saw.
 */
export function compareReports(
  provider: ReconcileProvider,
  range: { from: string; to: string },
  conduitRows: readonly DailyUsageRow[],
  report: VendorReport,
  usdTolerance = 0.000001,
): ReconcileReport {
  const rows = new Map<string, ReconcileRow>();
  const rowOf = (day: string, model: string) => {
    const id = `${day}\u0000${model}`;
    let row = rows.get(id);
    if (!row) {
      row = {
        day,
        model,
        conduit: { ...emptyFigures(), requests: 0 },
        vendor: null,
        drift: { inputTokens: 0, outputTokens: 0, tokens: 0, usd: 0 },
        status: "match",
      };
      rows.set(id, row);
    }
    return row;
  };
  const vendorOf = (row: ReconcileRow) => {
    row.vendor ??= { ...emptyFigures(), apiKeys: [] };
    return row.vendor;
  };
  for (const usage of conduitRows) {
    const model = modelServedBy(provider.name, usage.target);
    if (model === undefined || usage.day < range.from || usage.day > range.to) continue;
    const row = rowOf(usage.day, model);
    row.conduit.requests += usage.requests;
    row.conduit.inputTokens += usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    row.conduit.outputTokens += usage.outputTokens;
    row.conduit.cacheReadTokens += usage.cacheReadTokens;
    row.conduit.cacheWriteTokens += usage.cacheWriteTokens;
    row.conduit.usd += usage.costUsd;
  }
  for (const usage of report.usage) {
    const vendor = vendorOf(rowOf(usage.day, usage.model));
    const inputTokens = usage.uncachedInputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    vendor.inputTokens += inputTokens;
    vendor.outputTokens += usage.outputTokens;
    vendor.cacheReadTokens += usage.cacheReadTokens;
    vendor.cacheWriteTokens += usage.cacheWriteTokens;
    if (usage.apiKeyId !== undefined) vendor.apiKeys.push({ id: usage.apiKeyId, inputTokens, outputTokens: usage.outputTokens });
  }
  for (const cost of report.costs) vendorOf(rowOf(cost.day, cost.model)).usd += cost.usd;
  const totals = { conduitUsd: 0, vendorUsd: 0, driftUsd: 0, driftTokens: 0, driftingRows: 0 };
  const sorted = [...rows.values()].sort((a, b) => a.day.localeCompare(b.day) || a.model.localeCompare(b.model));
  for (const row of sorted) {
    const vendor = row.vendor ?? emptyFigures();
    row.conduit.usd = dollars(row.conduit.usd);
    if (row.vendor) row.vendor.usd = dollars(row.vendor.usd);
    row.drift.inputTokens = vendor.inputTokens - row.conduit.inputTokens;
    row.drift.outputTokens = vendor.outputTokens - row.conduit.outputTokens;
    row.drift.tokens = row.drift.inputTokens + row.drift.outputTokens;
    row.drift.usd = dollars(vendor.usd - row.conduit.usd);
    const differs = row.drift.tokens !== 0 || row.drift.inputTokens !== 0 || Math.abs(row.drift.usd) > usdTolerance;
    row.status = row.vendor === null ? "missing-at-vendor" : row.conduit.requests === 0 ? "unseen-by-conduit" : differs ? "drift" : "match";
    if (row.status !== "match") totals.driftingRows += 1;
    totals.conduitUsd += row.conduit.usd;
    totals.vendorUsd += vendor.usd;
    totals.driftTokens += row.drift.tokens;
  }
  totals.conduitUsd = dollars(totals.conduitUsd);
  totals.vendorUsd = dollars(totals.vendorUsd);
  totals.driftUsd = dollars(totals.vendorUsd - totals.conduitUsd);
  return { provider: provider.name, vendor: provider.vendor, from: range.from, to: range.to, usdTolerance, rows: sorted, totals };
}

/**
 * Reads the vendor's usage and cost reports for `[from, to]` (UTC days, both included) and
 * compares them with Conduit's usage history of the same days.
 *
 * @example
 * const report = await reconcile(provider, { from: "2026-12-01", to: "2026-12-07" }, (range) => usage.dailyUsage(range));
 * for (const row of report.rows) if (row.status !== "match") console.log(row.day, row.model, row.drift);
 */
export async function reconcile(
  provider: ReconcileProvider,
  range: { from: string; to: string },
  conduitUsage: (range: { from: Date; to: Date }) => Promise<DailyUsageRow[]>,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const read = options.report ?? (provider.vendor === "anthropic" ? anthropicReport : openaiReport);
  const [conduitRows, report] = await Promise.all([
    conduitUsage({ from: new Date(`${range.from}T00:00:00Z`), to: new Date(`${nextDay(range.to)}T00:00:00Z`) }),
    read(provider, range.from, range.to, options),
  ]);
  return compareReports(provider, range, conduitRows, report, options.usdTolerance);
}
