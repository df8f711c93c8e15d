/**
 * The tables of `bench:stack`, one per mode. Ratios are medians of per-round ratios, > 1 when
 * Conduit is better; the verdict is on CPU per request, the steadier figure on a shared machine.
 */
import type { Findings } from "./stack-check.js";
import { median } from "./statistics.js";

export type Mode = "defaults" | "same-work";

export interface Row {
  mode: Mode;
  framework: string;
  store: string;
  /** Per round, back to back: Conduit's run and the ecosystem's (of this mode). */
  conduit: Array<{ rate: number; cpu: number }>;
  ecosystem: Array<{ rate: number; cpu: number }>;
  findings: { conduit: Findings; ecosystem: Findings };
}

export const GOAL = 1.0;

const TITLES: Record<Mode, string> = {
  defaults: "defaults — each ecosystem's middleware as its users wire it, defaults kept",
  "same-work":
    "same-work — each ecosystem's middleware configured to Conduit's work (same header names, one line with the same fields, same buffered writer, same limiter store, no secret logged)",
};

const pad = (text: string | number, width: number) => String(text).padStart(width);
const spread = (ratios: number[]) => `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
const pair = (conduit: number | string, ecosystem: number | string) => `${conduit}/${ecosystem}`;

/** CPU ratio (ecosystem / conduit µs per request) and req/s ratio (conduit / ecosystem), per round. */
export function ratiosOf(row: Row): { cpu: number[]; rate: number[] } {
  return {
    cpu: row.conduit.map((conduit, round) => (row.ecosystem[round]?.cpu ?? Number.NaN) / conduit.cpu),
    rate: row.conduit.map((conduit, round) => conduit.rate / (row.ecosystem[round]?.rate ?? Number.NaN)),
  };
}

export function printTable(mode: Mode, rows: Row[]): void {
  console.log(`\n${TITLES[mode]}`);
  console.log(
    `${"framework".padEnd(10)}${"store".padEnd(8)}${pad("µs/req c/e", 12)}${pad("CPU ratio", 11)}${pad("rounds", 12)}${pad("req/s c/e", 13)}${pad("req/s ratio", 13)}${pad("rounds", 12)}${pad("lines c/e", 11)}${pad("log B/req c/e", 15)}${pad("headers c/e", 13)}${pad("secret logged c/e", 19)}  CPU goal ≥ ${GOAL.toFixed(1)}`,
  );
  let allMet = true;
  for (const row of rows) {
    const ratios = ratiosOf(row);
    const cpuRatio = median(ratios.cpu);
    const rateRatio = median(ratios.rate);
    const cpu = (runs: Row["conduit"]) => Math.round(median(runs.map((run) => run.cpu)));
    const rate = (runs: Row["conduit"]) => Math.round(median(runs.map((run) => run.rate)));
    const { conduit, ecosystem } = row.findings;
    allMet &&= cpuRatio >= GOAL;
    console.log(
      `${row.framework.padEnd(10)}${row.store.padEnd(8)}${pad(pair(cpu(row.conduit), cpu(row.ecosystem)), 12)}${pad(`${cpuRatio.toFixed(2)}×`, 11)}${pad(spread(ratios.cpu), 12)}${pad(pair(rate(row.conduit), rate(row.ecosystem)), 13)}${pad(`${rateRatio.toFixed(2)}×`, 13)}${pad(spread(ratios.rate), 12)}${pad(pair(conduit.linesPerRequest, ecosystem.linesPerRequest), 11)}${pad(pair(conduit.bytesPerRequest, ecosystem.bytesPerRequest), 15)}${pad(pair(conduit.headerNames.length, ecosystem.headerNames.length), 13)}${pad(pair(conduit.secretLogged ? "yes" : "no", ecosystem.secretLogged ? "yes" : "no"), 19)}  ${cpuRatio >= GOAL ? "ok" : "BELOW GOAL"}`,
    );
  }
  console.log(
    "c/e: conduit/ecosystem. µs/req: server CPU time per request (user + system), median of the rounds. CPU ratio: ecosystem / conduit µs per",
  );
  console.log(
    "request, median over rounds (> 1: Conduit spends less). req/s ratio: conduit / ecosystem (> 1: Conduit serves more). rounds: lowest–highest.",
  );
  console.log(
    "lines, log B: what one request wrote to the log; headers: response header names; secret logged: a log line held the API key or bearer token.",
  );
  console.log(`${mode}: ${allMet ? "every row meets" : "NOT every row meets"} the goal (CPU ratio ≥ ${GOAL.toFixed(1)}×).`);
}
