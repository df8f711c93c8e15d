/**
 * `bench:tracing`: the default stack with tracing on (every request sampled, batched OTLP/HTTP
 * protobuf export to a receiver on loopback that counts every span) against the same stack with
 * tracing off, in the same run, on two cells: `items` (`GET /api/items`, a plain route: one span a
 * request) and `messages` (the proxy's `POST /v1/messages` relayed to a fake Anthropic upstream in
 * its own process: the server, `chat {model}` and upstream client spans, three a request). Both servers and the receiver run in their own processes (the
 * receiver's work must not slow the load generator); rounds alternate (off, on, then on, off,
 * …). Printed: the median of the per-round on / off throughput ratios (goal ≥ 0.9×) and each
 * server's CPU per request (read from the server process), which wanders less on a busy host.
 * The receiver's span count shows what the exporter delivered (the batch processor drops spans
 * when its queue of 2048 is full, as OpenTelemetry's SDK does by default).
 *
 * Options: --frameworks hono,express,fastify,koa  --rounds 5  --duration 3  --connections 50
 *          --cells items,messages (default both)
 *          --lean (another server: tracing on with the lean attribute profile, `CONDUIT_TELEMETRY_ATTRIBUTES=lean`)
 *          --hook (a third server: Conduit's tracing hook installed with no-op spans, so Conduit's own
 *            traced path shows apart from OpenTelemetry's SDK and its AsyncLocalStorage)
 *          --parts (five servers: off, hook, "record" (the conduit engine recording spans, dropping them at
 *            end), "encode" (also encoding them into OTLP requests never sent) and on: where the
 *            cost goes, as each one's throughput ratio to off)
 *          --rate <req/s>[,<req/s>] (per cell, in --cells order; a fixed offered load instead of saturation: on this 2-core host the load
 *            generator shares the CPU, so at saturation a slower server also slows its client and
 *            CPU per request then measures that feedback; at a fixed rate it measures the work)
 *          --sdk conduit|opentelemetry (the engine of the "on" server: Conduit's own, the default, or
 *            OpenTelemetry's SDK with its AsyncLocalStorage context)
 *          --compression gzip|none (OTEL_EXPORTER_OTLP_COMPRESSION of the "on" server; default none)
 *          --profile <dir> (CPU profiles of every server in <dir>/<cell>-<mode> and of the receiver in <dir>/receiver, the top functions of the first cell's "on" printed)
 */
import { type ChildProcess, fork } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { forkChild } from "./bench-children.js";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";
import { median } from "./statistics.js";

const GOAL = 0.9;
const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,fastify" },
    cells: { type: "string", default: "items,messages" },
    lean: { type: "boolean", default: false },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    profile: { type: "string" },
    rate: { type: "string", default: "0" },
    hook: { type: "boolean", default: false },
    parts: { type: "boolean", default: false },
    sdk: { type: "string", default: "conduit" },
    compression: { type: "string", default: "none" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const frameworks = values.frameworks.split(",").map((name) => name.trim());
const cells = values.cells.split(",").map((name) => name.trim());
for (const cell of cells) if (cell !== "items" && cell !== "messages") throw new Error(`unknown cell ${cell}: use items, messages`);
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);

type Mode = "off" | "on" | "lean" | "hook" | "record" | "encode";
const modes: Mode[] = [
  ...(values.parts
    ? (["off", "hook", "record", "encode", "on"] as const)
    : values.hook
      ? (["off", "hook", "on"] as const)
      : (["off", "on"] as const)),
  ...(values.lean ? (["lean"] as const) : []),
];
interface Child {
  process: ChildProcess;
  url: string;
}

/** What one cell's load generator sends. */
const REQUESTS: Record<string, { path: string; method?: "POST"; headers?: Record<string, string>; body?: string }> = {
  items: { path: "/api/items" },
  messages: {
    path: "/v1/messages",
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "bench-client-key-0123456789" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] }),
  },
};

const execArgv = ["--conditions=@conduit-ai/source", "--import", "tsx"];
const receiver = fork(new URL("./tracing-receiver.ts", import.meta.url), [], {
  execArgv: [...execArgv, ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}/receiver`] : [])],
  stdio: ["ignore", "ignore", "inherit", "ipc"],
});
const endpoint = await new Promise<string>((resolve) =>
  receiver.once("message", (message: { endpoint: string }) => resolve(message.endpoint)),
);
// The fake Anthropic upstream of the messages cell, in its own process, shared by every server.
const upstream = cells.includes("messages") ? await forkChild(new URL("./proxy-upstream.ts", import.meta.url), ["0"]) : undefined;
const upstreamUrl = upstream ? `http://127.0.0.1:${upstream.port}` : "";

/** Asks a child over IPC and waits for its answer (`cpu` of a server, `count` of the receiver). */
function ask<T>(child: ChildProcess, question: string, field: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (message: Record<string, T>) => {
      if (!(field in message)) return;
      child.off("message", listener);
      resolve(message[field] as T);
    };
    child.on("message", listener);
    child.send(question);
  });
}

function startChild(framework: string, mode: Mode, cell: string): Promise<Child> {
  const profile = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}/${cell}-${mode}`] : [];
  const serverArguments = [framework, mode, endpoint, values.sdk, values.compression, cell, upstreamUrl];
  const child = fork(new URL("./tracing-server.ts", import.meta.url), serverArguments, {
    execArgv: [...execArgv, ...profile],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const path = REQUESTS[cell]?.path;
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ process: child, url: `http://127.0.0.1:${message.port}${path}` }));
    child.once("exit", (code) => reject(new Error(`${framework} tracing ${mode} exited with ${code}`)));
  });
}

const stop = (child: Child) =>
  new Promise<void>((resolve) => {
    child.process.once("exit", () => resolve());
    child.process.disconnect();
    setTimeout(() => child.process.kill(), 10_000).unref();
  });

/** Requests per second, and the server's CPU µs per request over the window. */
async function load(child: Child, cell: string): Promise<{ rps: number; cpu: number }> {
  const before = await ask<number>(child.process, "cpu", "cpu");
  const rates = values.rate.split(",").map(Number);
  const rate = rates[cells.indexOf(cell)] ?? rates[0] ?? 0;
  const { method, headers, body } = REQUESTS[cell] ?? {};
  const result = await autocannon({
    url: child.url,
    connections,
    duration,
    ...(method ? { method, headers, body } : {}),
    ...(rate > 0 ? { overallRate: rate } : {}),
  });
  const cpu = (await ask<number>(child.process, "cpu", "cpu")) - before;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${child.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, cpu: cpu / Math.max(1, result.requests.total) };
}

const compressed = values.compression === "none" ? "" : `, ${values.compression}`;
console.log(
  `bench:tracing — default stack, tracing on (${values.sdk} engine, sampling 1.0, OTLP protobuf${compressed} to a loopback receiver) vs off`,
);
console.log(`${rounds} rounds × ${duration} s, ${connections} connections; ratio = median of per-round on/off\n`);
let worst = Number.POSITIVE_INFINITY;
const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
for (const framework of frameworks)
  for (const cell of cells) {
    const label = `${framework} ${cell}`.padEnd(16);
    const children = {} as Record<Mode, Child>;
    for (const mode of modes) children[mode] = await startChild(framework, mode, cell);
    // Warm-up (twice each), and the check that tracing really exports: spans reach the receiver.
    for (let pass = 0; pass < 2; pass++) for (const mode of modes) await load(children[mode], cell);
    const ratios = Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
    const figures = Object.fromEntries(modes.map((mode) => [mode, { rps: [] as number[], cpu: [] as number[] }])) as Record<
      Mode,
      { rps: number[]; cpu: number[] }
    >;
    for (let round = 0; round < rounds; round++) {
      const measured = {} as Record<Mode, { rps: number; cpu: number }>;
      // Each round starts with the next mode, so no mode always runs first.
      const order = modes.map((_, index) => modes[(index + round) % modes.length] as Mode);
      for (const mode of order) measured[mode] = await load(children[mode], cell);
      for (const mode of modes) {
        figures[mode].rps.push(measured[mode].rps);
        figures[mode].cpu.push(measured[mode].cpu);
        ratios[mode].push(measured[mode].rps / measured.off.rps);
      }
    }
    for (const mode of modes) await stop(children[mode]);
    const { count: exported, cpu: receiverCpu } = await ask<{ count: number; cpu: number }>(receiver, "count", "received");
    const ratio = median(ratios.on);
    worst = Math.min(worst, ratio);
    const [cpuOff, cpuOn] = [median(figures.off.cpu), median(figures.on.cpu)];
    console.log(
      `${label} off ${Math.round(median(figures.off.rps))} req/s ${cpuOff.toFixed(0)} µs, on ${Math.round(median(figures.on.rps))} req/s ${cpuOn.toFixed(0)} µs` +
        ` → ${ratio.toFixed(3)}× throughput (goal ≥ ${GOAL}×), CPU ${(cpuOn / cpuOff).toFixed(2)}×` +
        (figures.hook
          ? `; no-op hook ${median(figures.hook.cpu).toFixed(0)} µs (${(median(figures.hook.cpu) / cpuOff).toFixed(2)}×)`
          : "") +
        `  [spans received: ${exported} (receiver ${(receiverCpu / Math.max(1, exported)).toFixed(1)} µs CPU each), rounds: ${spread(ratios.on)}]`,
    );
    if (values.lean) {
      const cpuLean = median(figures.lean.cpu);
      console.log(
        `${"".padEnd(16)} lean attributes: ${Math.round(median(figures.lean.rps))} req/s ${cpuLean.toFixed(0)} µs → ${median(ratios.lean).toFixed(3)}× throughput, CPU ${(cpuLean / cpuOff).toFixed(2)}×  [rounds: ${spread(ratios.lean)}]`,
      );
    }
    if (values.parts) {
      const part = (mode: Mode) => `${mode} ${median(ratios[mode]).toFixed(3)}× (${median(figures[mode].cpu).toFixed(0)} µs)`;
      console.log(`${"".padEnd(16)} parts, throughput vs off: ${(["hook", "record", "encode", "on"] as const).map(part).join(", ")}`);
    }
    if (exported === 0) throw new Error(`${framework} ${cell}: tracing on exported no span`);
  }
receiver.disconnect();
upstream?.child.disconnect();
console.log(`\ntracing on/off, worst cell: ${worst.toFixed(3)}× (goal ≥ ${GOAL}×) ${worst >= GOAL ? "met" : "NOT met"}`);
if (values.profile) printCpuProfileSummary(`${values.profile}/${cells[0]}-on`, 30);
