/**
 * `bench:provider-streams`: N concurrent `POST /api/agent/stream` calls through a real
 * provider over HTTP. Three processes: a slow OpenAI-compatible SSE server (one token per
 * second by default, provider-upstream.ts), Conduit with the reference runtime pointed at it
 * (provider-server.mjs), and this load generator. Prints streams started, time until every
 * stream delivered its first token, Conduit's RSS, heap and CPU per stream, `/api/metrics`
 * latency during the load, and whether cancelling the clients cancelled the upstream calls.
 *
 * Goal (tools/bench/README.md): 5 000 streams all streaming within 10 s, ≤ 48 KB RSS per stream (peak − idle).
 *
 * Options: --streams 5000  --framework hono  --interval 1000 (ms per upstream token)
 *          --batch 500 --every 100 (ramp: requests started per batch and ms between batches)
 *          --hold 5 (seconds of steady streaming measured after the last stream started)
 *          --source (TypeScript sources through tsx instead of the built packages)
 *          --snapshots <dir> (heap snapshots of Conduit before the load and while streaming,
 *          for `node src/heap-summary.mjs before after`)
 *          --profile <dir> (a CPU profile of Conduit, written when the bench ends)
 *
 * File descriptors: Conduit holds two sockets per stream (client and upstream), so 5 000
 * streams need ≈ 10 000 descriptors in its process; the bench raises nothing itself and
 * checks `ulimit -n` (20 000 here) before it starts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { request } from "node:http";
import { parseArgs } from "node:util";
import { type StreamLoad, closeAll, openStreams } from "./provider-stream-load.js";
import { ask, forkChild } from "./provider-streams-children.js";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "5000" },
    framework: { type: "string", default: "hono" },
    interval: { type: "string", default: "1000" },
    batch: { type: "string", default: "500" },
    every: { type: "string", default: "100" },
    hold: { type: "string", default: "5" },
    source: { type: "boolean", default: false },
    snapshots: { type: "string" },
    profile: { type: "string" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const STREAMS = Number(values.streams);
const BATCH = Number(values.batch);
const EVERY_MS = Number(values.every);
const GOAL_SECONDS = 10;
const GOAL_KB = 48;

const openFiles = Number(execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
if (Number.isFinite(openFiles) && openFiles < STREAMS * 2 + 1000) {
  console.error(
    `ulimit -n is ${openFiles}: Conduit needs two descriptors per stream (${STREAMS * 2 + 1000}); raise it (ulimit -n ${STREAMS * 2 + 1000}) or lower --streams`,
  );
  process.exit(2);
}

if (!values.source) {
  const projects = ["@conduit-ai/server-core", "@conduit-ai/runtime", `@conduit-ai/adapter-${values.framework}`];
  execFileSync("pnpm", ["exec", "nx", "run-many", "-t", "build", `--projects=${projects.join(",")}`, "--output-style=static"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const upstream = await forkChild("./provider-upstream.ts", [values.interval, "600"], ["--import", "tsx"]);
// Conduit runs as users run it (plain node on the built packages); `--source` needs tsx for the sources.
const conduit = await forkChild(
  "./provider-server.mjs",
  [values.framework, `http://127.0.0.1:${upstream.port}`],
  [
    ...(values.source ? ["--import", "tsx", "--conditions=@conduit-ai/source"] : []),
    "--expose-gc",
    ...(values.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${values.profile}`]),
  ],
);

interface Sample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  cpu: NodeJS.CpuUsage;
}
const sample = () => ask<Sample>(conduit.child, "sample");
const load: StreamLoad = {
  port: conduit.port,
  body: JSON.stringify({ input: { text: "Stream a long answer" }, provider: "openai", model: "bench-model" }),
  batch: BATCH,
  everyMs: EVERY_MS,
};

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

// Warm-up: the first calls compile the AI SDK's and the core's paths.
const warm = await openStreams(load, 50, 30_000);
closeAll(warm.streams);
await wait(1500);
await ask(conduit.child, "gc");
const before = await sample();
const snapshot = async (name: string) => {
  if (values.snapshots === undefined) return;
  mkdirSync(values.snapshots, { recursive: true });
  const { file } = await ask<{ file: string }>(conduit.child, `snapshot:${values.snapshots}/${name}.heapsnapshot`);
  console.log(`heap snapshot: ${file}`);
};
await snapshot("before");

// /api/metrics answered while the streams open and run: one scrape every 500 ms.
const metricLatencies: number[] = [];
let polling = true;
const pollMetrics = async () => {
  while (polling) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      request({ host: "127.0.0.1", port: conduit.port, path: "/api/metrics", agent: false }, (response) => {
        response.resume();
        response.on("end", resolve);
      })
        .on("error", () => resolve())
        .end();
    });
    metricLatencies.push(performance.now() - started);
    await wait(500);
  }
};
const poller = pollMetrics();

let peak = before;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const current = await sample();
    if (current.rss > peak.rss) peak = current;
    await wait(250);
  }
})();

const { streams, origin } = await openStreams(load, STREAMS, 60_000);
const rampSeconds = (performance.now() - origin) / 1000;
const afterRamp = await sample();
await snapshot("streaming");
const streaming = streams.filter((stream) => stream.streamingAt !== undefined);
const started = streams.filter((stream) => stream.startedAt !== undefined);
const failures = streams.filter((stream) => stream.failed !== undefined);
const allStreamingSeconds =
  streaming.length === STREAMS ? Math.max(...streaming.map((stream) => stream.streamingAt ?? 0)) / 1000 : Number.NaN;
// Steady streaming: every stream receives a token per interval for `hold` seconds.
await wait(Number(values.hold) * 1000);
sampling = false;
await sampler;
const steady = await sample();
if (steady.rss > peak.rss) peak = steady;
// What the streams hold once garbage is collected (the rest of the RSS is V8's heap headroom and native memory).
await ask(conduit.child, "gc");
const retained = await sample();
polling = false;
await poller;
const upstreamBefore = await ask<{ open: number }>(upstream.child, "status");
closeAll(streams);
// Every client gone must cancel its upstream call: wait (up to 20 s) until the provider has none open.
const closing = performance.now();
let upstreamAfter = await ask<{ open: number }>(upstream.child, "status");
while (upstreamAfter.open > 0 && performance.now() - closing < 20_000) {
  await wait(250);
  upstreamAfter = await ask<{ open: number }>(upstream.child, "status");
}
const cancelSeconds = (performance.now() - closing) / 1000;
const afterClose = await sample();

const sorted = [...metricLatencies].sort((a, b) => a - b);
const percentile = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
const cpuMs = (afterRamp.cpu.user + afterRamp.cpu.system - before.cpu.user - before.cpu.system) / 1000;
const steadyCpuMs = (steady.cpu.user + steady.cpu.system - afterRamp.cpu.user - afterRamp.cpu.system) / 1000;
const rssPerStream = (peak.rss - before.rss) / Math.max(streaming.length, 1);
const perStream = (bytes: number) => bytes / Math.max(streaming.length, 1);
const heapPerStream = perStream(retained.heapUsed - before.heapUsed);

console.log(
  `${STREAMS} concurrent POST /api/agent/stream on ${values.framework}, provider: OpenAI-compatible SSE over HTTP in its own process, one token per ${values.interval} ms`,
);
console.log(`ramp: ${BATCH} requests every ${EVERY_MS} ms (${values.source ? "TypeScript sources" : "built packages"})`);
console.log(
  `streams started (200 + headers): ${started.length}/${STREAMS}; streaming (first token relayed): ${streaming.length}/${STREAMS}; failed: ${failures.length}${failures[0] ? ` (first: ${failures[0].failed})` : ""}`,
);
console.log(
  `time until all streaming: ${Number.isNaN(allStreamingSeconds) ? `not all within ${rampSeconds.toFixed(1)} s` : `${allStreamingSeconds.toFixed(2)} s`}   (goal ≤ ${GOAL_SECONDS} s)`,
);
const firstTokens = streaming.map((stream) => (stream.streamingAt ?? 0) / 1000).sort((a, b) => a - b);
const at = (p: number) => (firstTokens[Math.min(firstTokens.length - 1, Math.floor(p * firstTokens.length))] ?? Number.NaN).toFixed(2);
console.log(`first token after (from the first request sent): p50 ${at(0.5)} s, p90 ${at(0.9)} s, p99 ${at(0.99)} s, max ${at(1)} s`);
console.log(`Conduit RSS: ${mb(before.rss)} before → ${mb(peak.rss)} peak; per stream ${kb(rssPerStream)}   (goal ≤ ${GOAL_KB} KB)`);
console.log(
  `Conduit heap per stream after GC: ${kb(heapPerStream)} (V8 heap committed +${kb(perStream(retained.heapTotal - before.heapTotal))}, external +${kb(perStream(retained.external - before.external))}); RSS after GC +${kb(perStream(retained.rss - before.rss))}`,
);
console.log(
  `CPU during the ramp: ${(cpuMs / Math.max(streaming.length, 1)).toFixed(2)} ms per stream; steady streaming: ${((steadyCpuMs / (Number(values.hold) * 1000)) * 100).toFixed(0)}% of a core for ${streaming.length} streams`,
);
console.log(
  `/api/metrics during the load: ${sorted.length} scrapes, median ${percentile(0.5).toFixed(0)} ms, p90 ${percentile(0.9).toFixed(0)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(0)} ms`,
);
console.log(
  `upstream streams open: ${upstreamBefore.open} while streaming → ${upstreamAfter.open} ${cancelSeconds.toFixed(1)} s after the clients left; Conduit RSS then ${mb(afterClose.rss)}`,
);
const ok = streaming.length === STREAMS && allStreamingSeconds <= GOAL_SECONDS && rssPerStream <= GOAL_KB * 1024;
console.log(ok ? "goal met" : "BELOW GOAL");

// Disconnecting lets the children exit on their own (and write a CPU profile when asked).
for (const child of [conduit.child, upstream.child]) {
  child.disconnect();
  setTimeout(() => child.kill(), 10_000).unref();
}
