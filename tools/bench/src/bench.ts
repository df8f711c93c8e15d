/**
 * `pnpm bench`: for each framework, the Conduit adapter (default middleware stack) against
 * the bare framework answering the same JSON on `GET /api/health`, side by side in one run.
 * Both servers run in child processes; rounds alternate (conduit, bare, conduit, …) so
 * drift on a shared machine hits both sides alike. Prints the median requests/s and the
 * ratio conduit / bare per framework (goal ≥ 0.7).
 *
 * Options: --frameworks hono,express,fastify,koa  --rounds 3  --duration 3  --connections 50
 */
import { type ChildProcess, fork } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const GOAL = 0.7;
const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,express,fastify,koa" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
  allowPositionals: true,
});
const frameworks = values.frameworks.split(",").map((name) => name.trim());
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);

interface Child {
  process: ChildProcess;
  url: string;
}

function startChild(framework: string, mode: "conduit" | "bare"): Promise<Child> {
  const child = fork(new URL("./bench-server.ts", import.meta.url), [framework, mode], {
    execArgv: ["--conditions=@conduit-ai/source", "--import", "tsx"],
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

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

interface Row {
  framework: string;
  conduit: number;
  bare: number;
  ratio: number;
}

const rows: Row[] = [];
console.log(`GET /api/health — ${rounds} alternating rounds × ${duration} s, ${connections} connections, servers in child processes`);
for (const framework of frameworks) {
  const conduit = await startChild(framework, "conduit");
  const bare = await startChild(framework, "bare");
  try {
    // Warm-up: JIT and connection pools on both sides.
    await measure(conduit.url, 1);
    await measure(bare.url, 1);
    const conduitRuns: number[] = [];
    const bareRuns: number[] = [];
    for (let round = 0; round < rounds; round++) {
      conduitRuns.push(await measure(conduit.url, duration));
      bareRuns.push(await measure(bare.url, duration));
    }
    const row = { framework, conduit: median(conduitRuns), bare: median(bareRuns), ratio: 0 };
    row.ratio = row.conduit / row.bare;
    rows.push(row);
    console.log(`  ${framework}: conduit ${conduitRuns.map(Math.round).join(" / ")}  bare ${bareRuns.map(Math.round).join(" / ")} req/s`);
  } finally {
    conduit.process.kill();
    bare.process.kill();
  }
}

const pad = (text: string | number, width: number) => String(text).padStart(width);
console.log(`\n${"framework".padEnd(10)}${pad("conduit req/s", 15)}${pad("bare req/s", 13)}${pad("ratio", 8)}  goal ≥ ${GOAL}`);
for (const row of rows) {
  console.log(
    `${row.framework.padEnd(10)}${pad(Math.round(row.conduit), 15)}${pad(Math.round(row.bare), 13)}${pad(row.ratio.toFixed(2), 8)}  ${row.ratio >= GOAL ? "ok" : "BELOW GOAL"}`,
  );
}
