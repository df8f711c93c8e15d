/**
 * `bench:proxy`: what a Conduit proxy hop costs, next to the floor of any Node proxy hop. Four
 * processes: the fake Anthropic upstream (proxy-upstream.ts), a bare `node:http` pipe
 * (proxy-baseline-server.ts: no framework, no pool), Conduit on its default stack
 * (proxy-server.ts) and this load generator. Targets, in rotating order each round:
 *
 * - `direct`: `POST /v1/messages` on the fake itself (the reference for added latency);
 * - `pipe`: the same through the bare pipe (the floor);
 * - `messages`: the same through Conduit (passthrough);
 * - `chat`, `responses`: `POST /v1/chat/completions` and `POST /v1/responses` through Conduit,
 *   translated to the Messages API and back.
 *
 * Headline: CPU per request of the serving process (read from that process), with its ratio to
 * the pipe's, at concurrency 1 and 32. Goals (tools/bench/README.md): messages ≤ 1.3× the pipe; chat and
 * responses ≤ 2×; added p50 at c=1 of messages ≤ the pipe's + 0.2 ms. Also p50/p99 added, and 64
 * concurrent SSE streams: throughput vs direct and CPU per MB relayed (pipe vs Conduit).
 *
 * Options: --requests 2000 (per target, concurrency and run) --rounds 4 --deltas 500 --streamRounds 3
 *          --targets messages,chat,responses (Conduit's targets; direct and pipe always run)
 *          --profile <dir> (a CPU profile of Conduit's process, its top functions printed)
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { type BenchChild, childCpu, forkChild } from "./bench-children.js";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";
import { percentile } from "./statistics.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "2000" },
    rounds: { type: "string", default: "4" },
    deltas: { type: "string", default: "500" },
    streamRounds: { type: "string", default: "3" },
    profile: { type: "string" },
    targets: { type: "string", default: "messages,chat,responses" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});

const upstream = await forkChild(new URL("./proxy-upstream.ts", import.meta.url), [values.deltas]);
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const pipe = await forkChild(new URL("./proxy-baseline-server.ts", import.meta.url), [upstreamUrl]);
const conduit = await forkChild(
  new URL("./proxy-server.ts", import.meta.url),
  [upstreamUrl],
  values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [],
);

interface Target {
  name: string;
  /** The process whose CPU this target spends (none for direct: the upstream's work is everyone's). */
  server?: BenchChild;
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
}
const prompt = [{ role: "user", content: "Hello" }];
const messagesBody = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: prompt });
const clientKey = { "x-api-key": "bench-client-key-0123456789" };
const allTargets: Target[] = [
  { name: "direct", port: upstream.port, path: "/v1/messages", headers: { "x-api-key": "sk-bench" }, body: messagesBody },
  { name: "pipe", server: pipe, port: pipe.port, path: "/v1/messages", headers: clientKey, body: messagesBody },
  { name: "messages", server: conduit, port: conduit.port, path: "/v1/messages", headers: clientKey, body: messagesBody },
  {
    name: "chat",
    server: conduit,
    port: conduit.port,
    path: "/v1/chat/completions",
    headers: clientKey,
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: prompt }),
  },
  {
    name: "responses",
    server: conduit,
    port: conduit.port,
    path: "/v1/responses",
    headers: clientKey,
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_output_tokens: 64, input: "Hello" }),
  },
];

const conduitTargets = values.targets.split(",").map((name) => name.trim());
const targets = allTargets.filter((target) => !target.server || target.server === pipe || conduitTargets.includes(target.name));

/** One request to its end; resolves with its duration (ms) and the bytes received. */
function call(target: Target, agent: Agent, body: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: target.path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...target.headers },
      },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.byteLength;
        });
        response.on("end", () =>
          response.statusCode === 200
            ? resolve({ ms: performance.now() - started, bytes })
            : reject(new Error(`${target.name}: status ${response.statusCode}`)),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

async function load(target: Target, concurrency: number, count: number, body = target.body) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let bytes = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const result = await call(target, agent, body);
        latencies.push(result.ms);
        bytes += result.bytes;
      }
    }),
  );
  agent.destroy();
  return { latencies, bytes, seconds: (performance.now() - started) / 1000 };
}

/** Runs `count` requests of `target` and reports the serving process's CPU (µs) they cost. */
async function measured(target: Target, concurrency: number, count: number, body = target.body) {
  const before = target.server ? await childCpu(target.server) : 0;
  const result = await load(target, concurrency, count, body);
  const cpu = target.server ? (await childCpu(target.server)) - before : 0;
  return { ...result, cpu };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

interface Row {
  p50: number;
  p99: number;
  cpuPerRequest: number;
}

async function latencyScenario(concurrency: number): Promise<Record<string, Row>> {
  const rounds = Number(values.rounds);
  const perRound = Math.ceil(Number(values.requests) / rounds);
  const samples = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  const cpu = new Map<string, number>(targets.map((target) => [target.name, 0]));
  // Warm every path (JIT, keep-alive sockets) before measuring.
  for (const target of targets) await load(target, concurrency, 400);
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, index) => targets[(index + round) % targets.length] as Target);
    for (const target of order) {
      const result = await measured(target, concurrency, perRound);
      samples.get(target.name)?.push(...result.latencies);
      cpu.set(target.name, (cpu.get(target.name) ?? 0) + result.cpu);
    }
  }
  const rows: Record<string, Row> = {};
  for (const target of targets) {
    const sorted = (samples.get(target.name) ?? []).sort((a, b) => a - b);
    rows[target.name] = {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuPerRequest: (cpu.get(target.name) ?? 0) / (perRound * rounds),
    };
  }
  const direct = rows.direct as Row;
  const pipeCpu = (rows.pipe as Row).cpuPerRequest;
  console.log(`\nconcurrency ${concurrency} (${perRound * rounds} requests per target, ${rounds} rotating rounds)`);
  console.log("  target      p50        p99        added p50  added p99  CPU/request   × pipe");
  for (const target of targets) {
    const row = rows[target.name] as Row;
    const added = target.name === "direct" ? ["", ""] : [ms(row.p50 - direct.p50), ms(row.p99 - direct.p99)];
    const cpuText = target.server ? `${row.cpuPerRequest.toFixed(0)} µs` : "";
    const ratio = target.server ? `${(row.cpuPerRequest / pipeCpu).toFixed(2)}×` : "";
    console.log(
      `  ${target.name.padEnd(11)} ${ms(row.p50).padEnd(10)} ${ms(row.p99).padEnd(10)} ${added[0]?.padEnd(10)} ${added[1]?.padEnd(10)} ${cpuText.padEnd(13)} ${ratio}`,
    );
  }
  return rows;
}

async function streamScenario(): Promise<void> {
  const rounds = Number(values.streamRounds);
  const streamTargets = targets.filter((target) => ["direct", "pipe", "messages"].includes(target.name));
  const streamBody = JSON.stringify({ ...JSON.parse(messagesBody), stream: true });
  const totals = new Map(streamTargets.map((target) => [target.name, { bytes: 0, seconds: 0, cpu: 0 }]));
  for (const target of streamTargets) await load(target, 64, 64, streamBody);
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? streamTargets : [...streamTargets].reverse()) {
      const result = await measured(target, 64, 64, streamBody);
      const total = totals.get(target.name) as { bytes: number; seconds: number; cpu: number };
      total.bytes += result.bytes;
      total.seconds += result.seconds;
      total.cpu += result.cpu;
    }
  }
  const rate = (name: string) => (totals.get(name)?.bytes ?? 0) / (totals.get(name)?.seconds ?? 1) / 1024 / 1024;
  const cpuPerMb = (name: string) => (totals.get(name)?.cpu ?? 0) / 1000 / ((totals.get(name)?.bytes ?? 1) / 1024 / 1024);
  console.log(`\n64 concurrent SSE streams (${values.deltas} deltas each), ${rounds} rounds`);
  console.log(`  direct    ${rate("direct").toFixed(1)} MB/s`);
  console.log(
    `  pipe      ${rate("pipe").toFixed(1)} MB/s (${(rate("pipe") / rate("direct")).toFixed(2)}×)   CPU ${cpuPerMb("pipe").toFixed(1)} ms/MB`,
  );
  console.log(
    `  messages  ${rate("messages").toFixed(1)} MB/s (${(rate("messages") / rate("direct")).toFixed(2)}×)   CPU ${cpuPerMb("messages").toFixed(1)} ms/MB (${(cpuPerMb("messages") / cpuPerMb("pipe")).toFixed(2)}× pipe)`,
  );
}

function goal(label: string, met: boolean, figure: string): string {
  return `  ${met ? "met   " : "MISSED"} ${label}: ${figure}`;
}

try {
  console.log("POST /v1/messages, /v1/chat/completions and /v1/responses through Conduit vs a bare node:http pipe vs the fake directly");
  const one = await latencyScenario(1);
  const many = await latencyScenario(32);
  await streamScenario();
  const ratio = (rows: Record<string, Row>, name: string) => (rows[name] as Row).cpuPerRequest / (rows.pipe as Row).cpuPerRequest;
  const addedP50 = (name: string) => (one[name] as Row).p50 - (one.direct as Row).p50;
  console.log("\ngoals (CPU per request against the pipe's)");
  for (const [rows, concurrency] of [
    [one, 1],
    [many, 32],
  ] as const) {
    if (rows.messages)
      console.log(goal(`messages ≤ 1.3× at c=${concurrency}`, ratio(rows, "messages") <= 1.3, `${ratio(rows, "messages").toFixed(2)}×`));
    for (const name of ["chat", "responses"].filter((name) => rows[name]))
      console.log(goal(`${name} ≤ 2× at c=${concurrency}`, ratio(rows, name) <= 2, `${ratio(rows, name).toFixed(2)}×`));
  }
  if (one.messages)
    console.log(
      goal(
        "messages added p50 at c=1 ≤ pipe's + 0.2 ms",
        addedP50("messages") <= addedP50("pipe") + 0.2,
        `${ms(addedP50("messages"))} vs pipe ${ms(addedP50("pipe"))}`,
      ),
    );
} finally {
  upstream.child.disconnect();
  pipe.child.disconnect();
  conduit.child.disconnect();
}
if (values.profile) {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  printCpuProfileSummary(values.profile, 25);
}
