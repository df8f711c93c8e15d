/**
 * `pnpm bench`: for each framework, the Conduit adapter (default middleware stack) against
 * the bare framework answering the same JSON on `GET /api/health`, side by side in one run.
 * Both servers run in child processes; rounds alternate (conduit, bare, conduit, …) so
 * drift on a shared machine hits both sides alike. Prints the median requests/s and, per
 * framework, the median of the rounds' conduit / bare ratios with their spread (goal ≥ 0.7).
 *
 * The servers run the built packages, as users do (the bench builds them first through Nx,
 * a cache hit when nothing changed); `--source` runs the TypeScript sources through tsx
 * instead, which adds tsx's own per-call helpers and so understates throughput.
 *
 * Options: --frameworks hono,express,fastify,koa  --rounds 5  --duration 3  --connections 50
 *          --with-core (adds the adapter without its default stack, to locate a cost)
 *          --source (children load the TypeScript sources)
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { median } from "./statistics.js";

const GOAL = 0.7;
const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,express,fastify,koa" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    "with-core": { type: "boolean", default: false },
    source: { type: "boolean", default: false },
    // Accepted for older command lines: built packages are the default.
    dist: { type: "boolean", default: false },
  },
  allowPositionals: true,
  // `pnpm bench -- --rounds 5` passes the `--` through.
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const frameworks = values.frameworks.split(",").map((name) => name.trim());
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Child {
  process: ChildProcess;
  url: string;
}

type Mode = "conduit" | "core" | "bare";

function startChild(framework: string, mode: Mode): Promise<Child> {
  const child = fork(new URL("./bench-server.ts", import.meta.url), [framework, mode], {
    execArgv: values.source ? ["--conditions=@conduit-ai/source", "--import", "tsx"] : ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ process: child, url: `http://127.0.0.1:${message.port}/api/health` }));
    child.once("exit", (code) => reject(new Error(`${framework} (${mode}) server exited with ${code}`)));
  });
}

/** Requests/s of one round; a round with errors or non-2xx answers is a failed measurement. */
async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

interface Row {
  framework: string;
  medians: Partial<Record<Mode, number>>;
  /** conduit / bare of each round (the two runs back to back), and their median. */
  roundRatios: number[];
  ratio: number;
}

if (!values.source) {
  const projects = ["@conduit-ai/server-core", ...frameworks.map((framework) => `@conduit-ai/adapter-${framework}`)];
  execFileSync("pnpm", ["exec", "nx", "run-many", "-t", "build", `--projects=${projects.join(",")}`, "--output-style=static"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const modes: Mode[] = values["with-core"] ? ["conduit", "core", "bare"] : ["conduit", "bare"];
const rows: Row[] = [];
console.log(
  `GET /api/health — ${rounds} alternating rounds × ${duration} s, ${connections} connections, servers in child processes (${values.source ? "TypeScript sources" : "built packages"})`,
);
for (const framework of frameworks) {
  const children = new Map<Mode, Child>();
  try {
    for (const mode of modes) children.set(mode, await startChild(framework, mode));
    const runs = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
    // Warm-up: JIT and keep-alive connections on every side.
    for (const mode of modes) await measure(children.get(mode)?.url as string, 1);
    for (let round = 0; round < rounds; round++) {
      for (const mode of modes) runs.get(mode)?.push(await measure(children.get(mode)?.url as string, duration));
    }
    const medians = Object.fromEntries(modes.map((mode) => [mode, median(runs.get(mode) ?? [])])) as Row["medians"];
    const bare = runs.get("bare") ?? [];
    const roundRatios = (runs.get("conduit") ?? []).map((conduit, round) => conduit / (bare[round] ?? Number.NaN));
    rows.push({ framework, medians, roundRatios, ratio: median(roundRatios) });
    console.log(`  ${framework}: ${modes.map((mode) => `${mode} ${(runs.get(mode) ?? []).map(Math.round).join(" / ")}`).join("  ")} req/s`);
  } finally {
    for (const child of children.values()) child.process.kill();
  }
}

const pad = (text: string | number, width: number) => String(text).padStart(width);
const columns = modes.map((mode) => (mode === "core" ? "no stack req/s" : `${mode} req/s`));
console.log(
  `\n${"framework".padEnd(10)}${columns.map((column) => pad(column, 16)).join("")}${pad("ratio", 8)}${pad("rounds", 13)}  goal ≥ ${GOAL}`,
);
for (const row of rows) {
  const figures = modes.map((mode) => pad(Math.round(row.medians[mode] ?? 0), 16)).join("");
  const spread = `${Math.min(...row.roundRatios).toFixed(2)}–${Math.max(...row.roundRatios).toFixed(2)}`;
  console.log(
    `${row.framework.padEnd(10)}${figures}${pad(row.ratio.toFixed(2), 8)}${pad(spread, 13)}  ${row.ratio >= GOAL ? "ok" : "BELOW GOAL"}`,
  );
}
console.log("req/s: medians of the rounds. ratio: median over rounds of conduit (default middleware stack) / bare framework,");
console.log("each round measuring the two back to back (drift on a shared machine hits both); rounds: lowest–highest round ratio.");
