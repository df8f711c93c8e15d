import { parseArgs } from "node:util";
import type { ReconcileReport } from "@conduit-ai/governance";
import { readConfigFile } from "../config-file.js";
import { reconcileProvidersOf } from "../reconcile-providers.js";
import { terminalStyle } from "../terminal-style.js";
import { UsageError } from "../usage-error.js";

export const RECONCILE_USAGE = `Usage: conduit reconcile --provider NAME --from YYYY-MM-DD --to YYYY-MM-DD --config file.json
                         [--json] [--tolerance USD]
Reads the vendor's own usage and cost reports (Anthropic's or OpenAI's Admin API, with the
provider's "adminKey") for those UTC days, both included, and prints them beside Conduit's usage
history (PostgreSQL, DATABASE_URL) per day and model, with the drift in tokens and dollars
(vendor − Conduit). A day and model only one side has is drift too.
  --json        the report as JSON
  --tolerance   dollar differences at most this large count as a match (default 0.000001)
Exit 0 when every row matches, 1 when some row drifts (or a report cannot be read), 2 on a usage mistake.`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `1234` → `1,234`; `-5` → `-5`. */
const tokens = (value: number) => value.toLocaleString("en-US");
const usd = (value: number) => `${value < 0 ? "-" : ""}$${Math.abs(value).toFixed(6)}`;
const signed = (value: number, format: (value: number) => string) => (value > 0 ? `+${format(value)}` : format(value));

/** The report as a table: one line per day × model, drifting rows in red, and the totals. */
export function reconcileTable(report: ReconcileReport, style: { red(text: string): string; bold(text: string): string }): string {
  const header = ["day", "model", "conduit tokens", "vendor tokens", "drift tokens", "conduit $", "vendor $", "drift $", "status"];
  const rows = report.rows.map((row) => {
    const conduitTokens = row.conduit.inputTokens + row.conduit.outputTokens;
    const vendorTokens = row.vendor ? row.vendor.inputTokens + row.vendor.outputTokens : 0;
    return [
      row.day,
      row.model,
      tokens(conduitTokens),
      row.vendor ? tokens(vendorTokens) : "—",
      signed(row.drift.tokens, tokens),
      usd(row.conduit.usd),
      row.vendor ? usd(row.vendor.usd) : "—",
      signed(row.drift.usd, usd),
      row.status,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column >= 2 && column <= 7 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number)))
      .join("  ")
      .trimEnd();
  const body = rows.map((cells, index) => (report.rows[index]?.status === "match" ? line(cells) : style.red(line(cells))));
  const { totals } = report;
  const summary =
    totals.driftingRows === 0
      ? `${report.provider}: no drift from ${report.from} to ${report.to} (${usd(totals.conduitUsd)} on both sides)`
      : `${report.provider}: ${totals.driftingRows} row(s) drift from ${report.from} to ${report.to}: ${signed(totals.driftTokens, tokens)} tokens, ${signed(totals.driftUsd, usd)} (Conduit ${usd(totals.conduitUsd)}, vendor ${usd(totals.vendorUsd)})`;
  return [style.bold(line(header)), ...body, "", totals.driftingRows === 0 ? summary : style.red(summary)].join("\n");
}

/**
 * `conduit reconcile`: the vendor's reports beside Conduit's usage history, read where both live
 * (the vendor's Admin API, `DATABASE_URL`), without a running server.
 */
export async function runReconcile(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let values: { provider?: string; from?: string; to?: string; config?: string; json?: boolean; tolerance?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        provider: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        config: { type: "string" },
        json: { type: "boolean" },
        tolerance: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${RECONCILE_USAGE}`);
  }
  const { provider: name, from, to, config } = values;
  if (!name || !from || !to || !config) throw new UsageError(`--provider, --from, --to and --config are required\n${RECONCILE_USAGE}`);
  if (!DAY.test(from) || !DAY.test(to)) throw new UsageError(`--from and --to are UTC days (YYYY-MM-DD)\n${RECONCILE_USAGE}`);
  const tolerance = values.tolerance === undefined ? undefined : Number(values.tolerance);
  if (tolerance !== undefined && !(tolerance >= 0)) throw new UsageError(`--tolerance expects dollars ≥ 0, got "${values.tolerance}"`);
  if (!env.DATABASE_URL) throw new UsageError(`conduit reconcile reads the usage history: set DATABASE_URL\n${RECONCILE_USAGE}`);
  const file = readConfigFile(config, "serve");
  let providers: ReturnType<typeof reconcileProvidersOf>;
  try {
    providers = reconcileProvidersOf(file, env);
  } catch (error) {
    throw new UsageError(`Config file ${config}: ${(error as Error).message}`);
  }
  const provider = providers.find((candidate) => candidate.name === name);
  if (!provider)
    throw new UsageError(
      `No provider "${name}" with an adminKey in ${config} (reconcilable: ${providers.map((entry) => entry.name).join(", ") || "none"})`,
    );
  const { PostgresUsageSink, reconcile, reconcileRange } = await import("@conduit-ai/governance");
  let range: { from: string; to: string };
  try {
    range = reconcileRange(from, to);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${RECONCILE_USAGE}`);
  }
  const pg = await import("pg");
  const pool = new pg.default.Pool({ connectionString: env.DATABASE_URL, max: 2, connectionTimeoutMillis: 5_000 });
  pool.on("error", () => undefined);
  const sink = new PostgresUsageSink({ pool, flushIntervalMs: 3_600_000 });
  try {
    const report = await reconcile(
      provider,
      range,
      (days) => sink.dailyUsage(days),
      tolerance === undefined ? {} : { usdTolerance: tolerance },
    );
    const style = terminalStyle(process.stdout, env, { json: values.json === true });
    console.log(values.json ? JSON.stringify(report, null, 2) : reconcileTable(report, style));
    if (report.totals.driftingRows > 0) process.exitCode = 1;
  } finally {
    await sink.close();
    await pool.end();
  }
}
