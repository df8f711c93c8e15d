/**
 * `bench:stack`: the full stack on a real route. For each framework and each rate-limit
 * store (memory, Redis), Conduit (its default stack + API-key auth) against the same
 * framework with its own ecosystem's middleware (stack-ecosystem.ts), both answering
 * `GET /api/items` with API-key auth, rate limiting (ceiling raised), one pino log line per
 * request to /dev/null, CORS, security headers, request id and timing.
 *
 * Both servers run in child processes; rounds alternate (conduit, ecosystem, …) and the
 * printed ratio is the median of the per-round conduit / ecosystem ratios. Before measuring,
 * each server is checked: 200 with the key, 401 without, the stack's headers present, and
 * its log lines per request counted.
 *
 * Options: --frameworks hono,express,fastify,koa  --stores memory,redis  --rounds 5
 *          --duration 3  --connections 50  --source
 *          --same-log-destination (the ecosystem's pino gets Conduit's buffered destination too)
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { median } from "./statistics.js";

const GOAL = 1.0;
const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,express,fastify,koa" },
    stores: { type: "string", default: "memory,redis" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    source: { type: "boolean", default: false },
    "same-log-destination": { type: "boolean", default: false },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const frameworks = values.frameworks.split(",").map((name) => name.trim());
const stores = values.stores.split(",").map((name) => name.trim()) as Array<"memory" | "redis">;
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `bench:stack:${randomUUID()}:`;
const HEADERS = { "x-api-key": "bench-api-key-0123456789", origin: "https://app.example" };

type Side = "conduit" | "ecosystem";
interface Child {
  process: ChildProcess;
  url: string;
  logLines: () => number;
  /** CPU time (µs) the server process has used so far. */
  cpu: () => Promise<number>;
}

if (!values.source) {
  const projects = ["@conduit-ai/server-core", "@conduit-ai/auth", ...frameworks.map((framework) => `@conduit-ai/adapter-${framework}`)];
  execFileSync("pnpm", ["exec", "nx", "run-many", "-t", "build", `--projects=${projects.join(",")}`, "--output-style=static"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** `countLogs`: stdout piped and its lines counted (the check); otherwise stdout goes to /dev/null. */
function startChild(framework: string, side: Side, store: string, countLogs: boolean): Promise<Child> {
  const child = fork(new URL("./stack-server.ts", import.meta.url), [framework, side, store, prefix], {
    execArgv: values.source ? ["--conditions=@conduit-ai/source", "--import", "tsx"] : ["--import", "tsx"],
    stdio: ["ignore", countLogs ? "pipe" : "ignore", "inherit", "ipc"],
    env: { ...process.env, STACK_LOG_BUFFERED: values["same-log-destination"] ? "1" : "0" },
  });
  let lines = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines++;
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => {
      const cpu = () =>
        new Promise<number>((answer) => {
          child.once("message", (reply: { cpu: number }) => answer(reply.cpu));
          child.send("cpu");
        });
      resolve({ process: child, url: `http://127.0.0.1:${message.port}/api/items`, logLines: () => lines, cpu });
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

/** Answers as a stack should: 200 with the key and 401 without, the stack's headers, log lines per request. */
async function check(framework: string, side: Side, store: string): Promise<string> {
  const child = await startChild(framework, side, store, true);
  try {
    const response = await fetch(child.url, { headers: HEADERS });
    await response.text();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const linesPerRequest = child.logLines();
    const refused = await fetch(child.url);
    await refused.text();
    const has = (...names: string[]) => names.some((name) => response.headers.has(name));
    const missing = [
      ["request id", has("x-request-id")],
      ["timing", has("x-response-time", "server-timing")],
      ["rate limit", has("x-ratelimit-limit", "ratelimit-limit", "ratelimit")],
      ["cors", has("access-control-allow-origin")],
      ["security", has("x-content-type-options")],
    ].flatMap(([name, present]) => (present ? [] : [name as string]));
    if (response.status !== 200 || refused.status !== 401 || missing.length > 0) {
      throw new Error(
        `${framework} ${side} (${store}): ${response.status} with key, ${refused.status} without, missing ${missing.join(", ") || "nothing"}`,
      );
    }
    return String(linesPerRequest);
  } finally {
    await stop(child);
  }
}

/** Requests/s of one round, and the server's CPU µs per request (steadier than req/s on a shared machine). */
async function measure(child: Child, seconds: number): Promise<{ rate: number; cpu: number }> {
  const before = await child.cpu();
  const result = await autocannon({ url: child.url, connections, duration: seconds, pipelining: 1, headers: HEADERS });
  const used = (await child.cpu()) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${child.url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rate: result.requests.average, cpu: used / Math.max(result.requests.total, 1) };
}

interface Row {
  framework: string;
  store: string;
  conduit: number;
  ecosystem: number;
  ratios: number[];
  /** ecosystem CPU µs per request / conduit's, per round. */
  cpuRatios: number[];
  cpu: Record<Side, number>;
  logs: string;
}

console.log(
  `GET /api/items behind the full stack — ${rounds} alternating rounds × ${duration} s, ${connections} connections, servers in child processes (${values.source ? "TypeScript sources" : "built packages"}); ecosystem log destination: ${values["same-log-destination"] ? "Conduit's (buffered 4 KB)" : "pino's default"}`,
);
const rows: Row[] = [];
for (const framework of frameworks) {
  for (const store of stores) {
    const logs = `${await check(framework, "conduit", store)}/${await check(framework, "ecosystem", store)}`;
    const children = {
      conduit: await startChild(framework, "conduit", store, false),
      ecosystem: await startChild(framework, "ecosystem", store, false),
    };
    try {
      const runs: Record<Side, Array<{ rate: number; cpu: number }>> = { conduit: [], ecosystem: [] };
      for (const side of ["conduit", "ecosystem"] as const) await measure(children[side], 1);
      for (let round = 0; round < rounds; round++) {
        for (const side of ["conduit", "ecosystem"] as const) runs[side].push(await measure(children[side], duration));
      }
      const ratios = runs.conduit.map((conduit, round) => conduit.rate / (runs.ecosystem[round]?.rate ?? Number.NaN));
      const cpuRatios = runs.conduit.map((conduit, round) => (runs.ecosystem[round]?.cpu ?? Number.NaN) / conduit.cpu);
      const rates = (side: Side) => runs[side].map((run) => run.rate);
      const cpu = { conduit: median(runs.conduit.map((run) => run.cpu)), ecosystem: median(runs.ecosystem.map((run) => run.cpu)) };
      rows.push({
        framework,
        store,
        conduit: median(rates("conduit")),
        ecosystem: median(rates("ecosystem")),
        ratios,
        cpuRatios,
        cpu,
        logs,
      });
      console.log(
        `  ${framework} (${store}): conduit ${rates("conduit").map(Math.round).join(" / ")}  ecosystem ${rates("ecosystem").map(Math.round).join(" / ")} req/s`,
      );
    } finally {
      await Promise.all([stop(children.conduit), stop(children.ecosystem)]);
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

const pad = (text: string | number, width: number) => String(text).padStart(width);
const spread = (ratios: number[]) => `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
console.log(
  `\n${"framework".padEnd(10)}${"store".padEnd(8)}${pad("conduit req/s", 15)}${pad("ecosystem req/s", 17)}${pad("ratio", 8)}${pad("rounds", 12)}${pad("µs/req c/e", 13)}${pad("cpu ratio", 11)}${pad("rounds", 12)}${pad("log lines", 11)}  goal ≥ ${GOAL.toFixed(1)}`,
);
for (const row of rows) {
  const ratio = median(row.ratios);
  const cpuRatio = median(row.cpuRatios);
  console.log(
    `${row.framework.padEnd(10)}${row.store.padEnd(8)}${pad(Math.round(row.conduit), 15)}${pad(Math.round(row.ecosystem), 17)}${pad(ratio.toFixed(2), 8)}${pad(spread(row.ratios), 12)}${pad(`${Math.round(row.cpu.conduit)}/${Math.round(row.cpu.ecosystem)}`, 13)}${pad(cpuRatio.toFixed(2), 11)}${pad(spread(row.cpuRatios), 12)}${pad(row.logs, 11)}  ${ratio >= GOAL ? "ok" : "BELOW GOAL"}`,
  );
}
console.log(
  "req/s: medians of the rounds. ratio: median over rounds of conduit / ecosystem req/s, each round measuring the two back to back.",
);
console.log(
  "µs/req: server CPU time per request (user + system), conduit/ecosystem; cpu ratio: ecosystem / conduit per round (> 1: Conduit",
);
console.log(
  "spends less), steadier than req/s on a shared machine. rounds: lowest–highest. log lines: lines logged for one request (conduit/ecosystem).",
);
