/** One day × model of `GET /admin/reconcile` (governance's `ReconcileRow`), as the page reads it. */
export interface ReconcileRow {
  day: string;
  model: string;
  conduit: { requests: number; inputTokens: number; outputTokens: number; usd: number };
  vendor: { inputTokens: number; outputTokens: number; usd: number; apiKeys: Array<{ id: string }> } | null;
  drift: { inputTokens: number; outputTokens: number; tokens: number; usd: number };
  status: "match" | "drift" | "missing-at-vendor" | "unseen-by-conduit";
}

/**
 * Whether a row shows in red: its dollar drift is above the threshold, or one side has nothing
 * for the day (a vendor silent on a day Conduit saw traffic is drift, whatever the amount).
 *
 * @example
 * overThreshold(row, 0.01); // true for a row drifting by $0.02
 */
export function overThreshold(row: Pick<ReconcileRow, "drift" | "status">, thresholdUsd: number): boolean {
  if (row.status === "missing-at-vendor" || row.status === "unseen-by-conduit") return true;
  return Math.abs(row.drift.usd) > thresholdUsd;
}

/** `+1,200` / `-42` / `0`. */
export const signedNumber = (value: number) => `${value > 0 ? "+" : ""}${value.toLocaleString("en-US")}`;

/** Dollars to the micro-dollar, signed: `+$0.002250`. */
export const signedUsd = (value: number) => `${value > 0 ? "+" : value < 0 ? "-" : ""}$${Math.abs(value).toFixed(6)}`;

/** `YYYY-MM-DD` of `daysAgo` days before today (UTC). */
export function utcDay(daysAgo = 0, now = Date.now()): string {
  return new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 10);
}
