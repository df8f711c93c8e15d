/**
 * `bench:proxy`: what the Messages passthrough adds. Three processes: the fake Anthropic
 * upstream (proxy-upstream.ts), Conduit with the proxy (proxy-server.ts), and this load
 * generator, which calls the same upstream directly and through Conduit in alternating rounds.
 *
 * - Added latency of `POST /v1/messages` (JSON answer): p50 and p99 at concurrency 1 and 64.
 *   Goal: p99 added < 1 ms at concurrency 1.
 * - 64 concurrent SSE streams (each ≈ `--deltas` × 150 bytes): throughput through Conduit vs
 *   direct. Goal: ≥ 0.9×.
 *
 * Also printed: Conduit's CPU time per request (robust on a busy host, where wall-time
 * percentiles mostly measure the scheduler).
 *
 * Options: --requests 2000 (per side and concurrency) --rounds 4 --deltas 2000 --streamRounds 3
 *          --profile <dir> (a CPU profile of Conduit's process)
 *          --baseline (a bare Node http pipe in Conduit's place: the floor of any proxy hop on this host)
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { childCpu, forkChild } from "./bench-children.js";
import { percentile } from "./statistics.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "2000" },
    rounds: { type: "string", default: "4" },
    deltas: { type: "string", default: "2000" },
    streamRounds: { type: "string", default: "3" },
    profile: { type: "string" },
    baseline: { type: "boolean", default: false },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});

const upstream = await forkChild(new URL("./proxy-upstream.ts", import.meta.url), [values.deltas]);
const conduit = await forkChild(
  new URL(values.baseline ? "./proxy-baseline-server.ts" : "./proxy-server.ts", import.meta.url),
  [`http://127.0.0.1:${upstream.port}`],
  values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [],
);

interface Target {
  name: string;
  port: number;
  headers: Record<string, string>;
}
const direct: Target = { name: "direct", port: upstream.port, headers: { "x-api-key": "sk-bench" } };
const viaConduit: Target = { name: "conduit", port: conduit.port, headers: { "x-api-key": "bench-client-key-0123456789" } };
const jsonBody = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] });
const streamBody = JSON.stringify({
  model: "claude-sonnet-4-5",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "Hello" }],
});

/** One request to its end; resolves with its duration (ms) and the bytes received. */
function call(target: Target, agent: Agent, body: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: "/v1/messages",
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

async function load(
  target: Target,
  concurrency: number,
  count: number,
  body: string,
): Promise<{ latencies: number[]; bytes: number; seconds: number }> {
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
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { latencies, bytes, seconds };
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function latencyScenario(concurrency: number): Promise<{ p50: number; p99: number }> {
  const rounds = Number(values.rounds);
  const perRound = Math.ceil(Number(values.requests) / rounds);
  const samples: Record<string, number[]> = { direct: [], conduit: [] };
  // Warm both paths (JIT, keep-alive sockets) before measuring.
  await load(direct, concurrency, 300, jsonBody);
  await load(viaConduit, concurrency, 300, jsonBody);
  let cpu = 0;
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? [direct, viaConduit] : [viaConduit, direct]) {
      const before = target === viaConduit ? await childCpu(conduit) : 0;
      samples[target.name]?.push(...(await load(target, concurrency, perRound, jsonBody)).latencies);
      if (target === viaConduit) cpu += (await childCpu(conduit)) - before;
    }
  }
  const sortedDirect = (samples.direct ?? []).sort((a, b) => a - b);
  const sortedConduit = (samples.conduit ?? []).sort((a, b) => a - b);
  const result = {
    p50: percentile(sortedConduit, 50) - percentile(sortedDirect, 50),
    p99: percentile(sortedConduit, 99) - percentile(sortedDirect, 99),
  };
  console.log(
    `c=${String(concurrency).padEnd(3)} direct p50 ${fmt(percentile(sortedDirect, 50))} p99 ${fmt(percentile(sortedDirect, 99))} | conduit p50 ${fmt(percentile(sortedConduit, 50))} p99 ${fmt(percentile(sortedConduit, 99))} | added p50 ${fmt(result.p50)} p99 ${fmt(result.p99)} | Conduit CPU ${(cpu / (perRound * rounds)).toFixed(0)} µs/request`,
  );
  return result;
}

async function streamScenario(): Promise<number> {
  const rounds = Number(values.streamRounds);
  const totals: Record<string, { bytes: number; seconds: number }> = {
    direct: { bytes: 0, seconds: 0 },
    conduit: { bytes: 0, seconds: 0 },
  };
  await load(direct, 64, 64, streamBody);
  await load(viaConduit, 64, 64, streamBody);
  let cpu = 0;
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? [direct, viaConduit] : [viaConduit, direct]) {
      const before = target === viaConduit ? await childCpu(conduit) : 0;
      const result = await load(target, 64, 64, streamBody);
      if (target === viaConduit) cpu += (await childCpu(conduit)) - before;
      const total = totals[target.name] as { bytes: number; seconds: number };
      total.bytes += result.bytes;
      total.seconds += result.seconds;
    }
  }
  const rate = (name: string) => (totals[name]?.bytes ?? 0) / (totals[name]?.seconds ?? 1) / 1024 / 1024;
  const ratio = rate("conduit") / rate("direct");
  console.log(
    `64 SSE streams (${values.deltas} deltas each): direct ${rate("direct").toFixed(1)} MB/s | conduit ${rate("conduit").toFixed(1)} MB/s | ratio ${ratio.toFixed(2)}× | Conduit CPU ${(cpu / 1000 / ((totals.conduit?.bytes ?? 1) / 1024 / 1024)).toFixed(1)} ms per MB relayed`,
  );
  return ratio;
}

try {
  console.log(
    `POST /v1/messages through ${values.baseline ? "a bare Node http pipe (--baseline)" : "Conduit's proxy"} vs the fake upstream directly (same process layout, alternating rounds)`,
  );
  const one = await latencyScenario(1);
  await latencyScenario(64);
  const ratio = await streamScenario();
  console.log(
    `goals: p99 added at c=1 < 1 ms: ${one.p99 < 1 ? "met" : "missed"} (${fmt(one.p99)}); stream throughput ≥ 0.9×: ${ratio >= 0.9 ? "met" : "missed"} (${ratio.toFixed(2)}×)`,
  );
} finally {
  upstream.child.disconnect();
  conduit.child.disconnect();
}
