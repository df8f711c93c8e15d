// Every figure `bench:gateway` prints is also a CSV row (`--csv <file>`), so docs/benchmarks.md carries
// the raw data beside its tables.
import { writeFileSync } from "node:fs";

export interface ResultRow {
  scenario: string;
  cell: string;
  gateway: string;
  requests: number;
  failed: string;
  p50Ms?: number;
  p99Ms?: number;
  addedP50Ms?: number;
  addedP99Ms?: number;
  cpuUsPerRequest?: number;
  /** Bytes allocated on the serving process's heap per request, in KB. */
  allocatedKbPerRequest?: number;
  note?: string;
}

export const rows: ResultRow[] = [];

const columns: (keyof ResultRow)[] = [
  "scenario",
  "cell",
  "gateway",
  "requests",
  "failed",
  "p50Ms",
  "p99Ms",
  "addedP50Ms",
  "addedP99Ms",
  "cpuUsPerRequest",
  "allocatedKbPerRequest",
  "note",
];

function cell(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function writeCsv(file: string): void {
  writeFileSync(file, `${[columns.join(","), ...rows.map((row) => columns.map((key) => cell(row[key])).join(","))].join("\n")}\n`);
}

export const fmt = (value: number | undefined, unit = "") =>
  value === undefined || Number.isNaN(value) ? "—" : `${value.toFixed(2)}${unit}`;
