/**
 * `bench:stack`: the full stack on a real route. For each framework and each rate-limit
 * store (memory, Redis), Conduit (its default stack + API-key auth) against the same
 * framework with its own ecosystem's middleware, in two tables from one run:
 * - defaults: the ecosystem's middleware as its users wire it, defaults kept (stack-ecosystem.ts);
 * - same-work: the same middleware configured to do exactly Conduit's work (stack-same-work.ts):
 *   the same response header names, one log line per request with Conduit's fields through the
 *   same buffered destination, never a secret logged, Conduit's own limiter store.
 * Each answers `GET /api/items` with API-key auth, rate limiting (ceiling raised), request
 * logging to /dev/null, CORS, security headers, request id and timing.
 *
 * All servers run in child processes; rounds alternate (conduit, defaults, same-work, …) and a
 * ratio is the median of the per-round ratios, > 1 when Conduit is better: req/s conduit /
 * ecosystem, CPU per request ecosystem / conduit (the headline). Before measuring, each server
 * is checked (stack-check.ts); a same-work server whose header names or log lines per request
 * differ from Conduit's, or any log line of Conduit or same-work holding a secret (the API key, or a
 * bearer token the checked request also sends), fails the run.
 *
 * Options: --frameworks hono,express,fastify,koa  --stores memory,redis  --modes defaults,same-work
 *          --rounds 5  --duration 3  --connections 50  --source
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { type Findings, inspect, problems } from "./stack-check.js";
import { API_KEY } from "./stack-ecosystem.js";
import { type Mode, type Row, printTable } from "./stack-table.js";

const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,express,fastify,koa" },
    stores: { type: "string", default: "memory,redis" },
    modes: { type: "string", default: "defaults,same-work" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    source: { type: "boolean", default: false },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const list = (text: string) => text.split(",").map((name) => name.trim());
const frameworks = list(values.frameworks);
const stores = list(values.stores) as Array<"memory" | "redis">;
const modes = list(values.modes) as Mode[];
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `bench:stack:${randomUUID()}:`;
const HEADERS = { "x-api-key": API_KEY, origin: "https://app.example" };

/** conduit, and the ecosystem's server of each mode ("ecosystem" = its defaults). */
type Side = "conduit" | "ecosystem" | "same-work";
const sideOf: Record<Mode, Side> = { defaults: "ecosystem", "same-work": "same-work" };
const sides: Side[] = ["conduit", ...modes.map((mode) => sideOf[mode])];
interface Child {
  process: ChildProcess;
  url: string;
  output: () => string;
  /** CPU time (µs) the server process has used so far. */
  cpu: () => Promise<number>;
}

if (!values.source) {
  const projects = ["@conduit-ai/server-core", "@conduit-ai/auth", ...frameworks.map((framework) => `@conduit-ai/adapter-${framework}`)];
  execFileSync("pnpm", ["exec", "nx", "run-many", "-t", "build", `--projects=${projects.join(",")}`, "--output-style=static"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** `capture`: stdout piped and kept (the checks); otherwise stdout goes to /dev/null. */
function startChild(framework: string, side: Side, store: string, capture: boolean): Promise<Child> {
  const child = fork(new URL("./stack-server.ts", import.meta.url), [framework, side, store, prefix], {
    execArgv: values.source ? ["--conditions=@conduit-ai/source", "--import", "tsx"] : ["--import", "tsx"],
    stdio: ["ignore", capture ? "pipe" : "ignore", "inherit", "ipc"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => {
      const cpu = () =>
        new Promise<number>((answer) => {
          child.once("message", (reply: { cpu: number }) => answer(reply.cpu));
          child.send("cpu");
        });
      resolve({ process: child, url: `http://127.0.0.1:${message.port}/api/items`, output: () => output, cpu });
    });
    child.once("exit", (code) => reject(new Error(`${framework} ${side} (${store}) exited with ${code}`)));
  });
}

const stop = (child: Child) =>
  new Promise<void>((resolve) => {
    child.process.once("exit", () => resolve());
    child.process.disconnect();
    setTimeout(() => child.process.kill(), 5000).unref();
  });

async function findingsOf(framework: string, side: Side, store: string): Promise<Findings> {
  const child = await startChild(framework, side, store, true);
  try {
    return await inspect(child);
  } finally {
    await stop(child);
  }
}

/** Every side checked; throws (with the header diff) when one is unfit to measure against Conduit. */
async function check(framework: string, store: string): Promise<Record<Side, Findings>> {
  const found = {} as Record<Side, Findings>;
  for (const side of sides) found[side] = await findingsOf(framework, side, store);
  const failures = sides.flatMap((side) => {
    const sideProblems = problems(found[side], side === "same-work" ? found.conduit : undefined);
    if (side === "conduit" && found.conduit.secretLogged) sideProblems.push("a log line contains a secret (API key or bearer token)");
    return sideProblems.map((problem) => `${framework} ${side} (${store}): ${problem}`);
  });
  if (failures.length > 0) throw new Error(`not measured:\n  ${failures.join("\n  ")}`);
  return found;
}

/** Requests/s of one round, and the server's CPU µs per request (steadier than req/s on a shared machine). */
async function measure(child: Child, seconds: number): Promise<{ rate: number; cpu: number }> {
  const before = await child.cpu();
  const result = await autocannon({ url: child.url, connections, duration: seconds, pipelining: 1, headers: HEADERS });
  const used = (await child.cpu()) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${child.url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rate: result.requests.average, cpu: used / Math.max(result.requests.total, 1) };
}

console.log(
  `GET /api/items behind the full stack — ${rounds} alternating rounds × ${duration} s, ${connections} connections, servers in child processes (${values.source ? "TypeScript sources" : "built packages"}); modes: ${modes.join(", ")}`,
);
const rows: Row[] = [];
for (const framework of frameworks) {
  for (const store of stores) {
    const findings = await check(framework, store);
    const children = {} as Record<Side, Child>;
    try {
      for (const side of sides) children[side] = await startChild(framework, side, store, false);
      const runs = Object.fromEntries(sides.map((side) => [side, [] as Array<{ rate: number; cpu: number }>])) as Record<
        Side,
        Array<{ rate: number; cpu: number }>
      >;
      for (const side of sides) await measure(children[side], 1);
      for (let round = 0; round < rounds; round++) {
        for (const side of sides) runs[side].push(await measure(children[side], duration));
      }
      for (const mode of modes) {
        const side = sideOf[mode];
        rows.push({
          mode,
          framework,
          store,
          conduit: runs.conduit,
          ecosystem: runs[side],
          findings: { conduit: findings.conduit, ecosystem: findings[side] },
        });
      }
      const rates = (side: Side) => runs[side].map((run) => Math.round(run.rate)).join(" / ");
      console.log(`  ${framework} (${store}): ${sides.map((side) => `${side} ${rates(side)}`).join("  ")} req/s`);
    } finally {
      await Promise.all(Object.values(children).map(stop));
    }
  }
}

// The Redis runs left counters under this run's prefix: remove them (ours only, by SCAN).
if (stores.includes("redis")) {
  const redis = new Redis(REDIS_URL);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `*${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
  redis.disconnect();
}

for (const mode of modes)
  printTable(
    mode,
    rows.filter((row) => row.mode === mode),
  );
