import type { UsageRow } from "../usage/usage-event.js";

const FIELDS = [
  "group",
  "name",
  "requests",
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "costUsd",
  "estimatedRequests",
  "cacheHitRatio",
  "savedUsd",
] as const;

function cell(value: unknown): string {
  const text = value === undefined ? "" : String(value);
  // Quoted when needed; a leading formula character is defused for spreadsheets.
  const safe = /^[=+\-@]/.test(text) && typeof value === "string" ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * Usage rows as CSV with a header row of the field names.
 *
 * @example
 * usageCsv([{ group: "k_1", requests: 2, inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01, cacheHitRatio: 0, savedUsd: 0, estimatedRequests: 0 }]);
 */
export function usageCsv(rows: UsageRow[]): string {
  return `${[FIELDS.join(","), ...rows.map((row) => FIELDS.map((field) => cell(row[field])).join(","))].join("\r\n")}\r\n`;
}
