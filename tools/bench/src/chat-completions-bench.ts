/**
 * `bench:chat-completions`: what the OpenAI-compatible surface adds over calling the Messages API
 * directly. Three processes: the fake Messages API (proxy-upstream.ts), Conduit with the proxy and
 * chat completions (chat-completions-server.ts), and this load generator, alternating rounds.
 *
 * - Added latency of `POST /v1/chat/completions` (JSON; translation both ways + the pool) vs
 *   `POST /v1/messages` on the fake directly: p50 and p99 at concurrency 1 and 16, Conduit CPU per request.
 * - 16 concurrent streams of `--deltas` text deltas: completion time through the chat completions
 *   translation vs the Messages stream directly (events parsed and re-encoded per delta).
 *
 * Options: --requests 1000 (per side and concurrency) --rounds 4 --deltas 500 --streamRounds 3
 *          --profile <dir> (a CPU profile of Conduit's process, its top functions printed)
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { childCpu, forkChild } from "./bench-children.js";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";
import { percentile } from "./statistics.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "1000" },
    rounds: { type: "string", default: "4" },
    deltas: { type: "string", default: "500" },
    streamRounds: { type: "string", default: "3" },
    profile: { type: "string" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});

const upstream = await forkChild(new URL("./proxy-upstream.ts", import.meta.url), [values.deltas]);
const conduit = await forkChild(
  new URL("./chat-completions-server.ts", import.meta.url),
  [`http://127.0.0.1:${upstream.port}`],
  values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [],
);

interface Target {
  name: "direct" | "conduit";
  port: number;
  path: string;
  headers: Record<string, string>;
  body(stream: boolean): string;
}
const messages = [{ role: "user", content: "Hello" }];
const direct: Target = {
  name: "direct",
  port: upstream.port,
  path: "/v1/messages",
  headers: { "x-api-key": "sk-bench", "anthropic-version": "2023-06-01" },
  body: (stream) => JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages, ...(stream ? { stream } : {}) }),
};
const viaConduit: Target = {
  name: "conduit",
  port: conduit.port,
  path: "/v1/chat/completions",
  headers: { authorization: "Bearer bench-client-key-0123456789" },
  body: (stream) =>
    JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      messages,
      ...(stream ? { stream, stream_options: { include_usage: true } } : {}),
    }),
};

function call(target: Target, agent: Agent, stream: boolean): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: target.path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", ...target.headers },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${target.name}: status ${response.statusCode}`)),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(target.body(stream));
  });
}

async function load(
  target: Target,
  concurrency: number,
  count: number,
  stream: boolean,
): Promise<{ latencies: number[]; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        latencies.push(await call(target, agent, stream));
      }
    }),
  );
  agent.destroy();
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function latencyScenario(concurrency: number): Promise<void> {
  const rounds = Number(values.rounds);
  const perRound = Math.ceil(Number(values.requests) / rounds);
  const samples = { direct: [] as number[], conduit: [] as number[] };
  await load(direct, concurrency, 200, false);
  await load(viaConduit, concurrency, 200, false);
  let cpu = 0;
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? [direct, viaConduit] : [viaConduit, direct]) {
      const before = target === viaConduit ? await childCpu(conduit) : 0;
      samples[target.name].push(...(await load(target, concurrency, perRound, false)).latencies);
      if (target === viaConduit) cpu += (await childCpu(conduit)) - before;
    }
  }
  const d = samples.direct.sort((a, b) => a - b);
  const c = samples.conduit.sort((a, b) => a - b);
  console.log(
    `c=${String(concurrency).padEnd(3)} messages direct p50 ${fmt(percentile(d, 50))} p99 ${fmt(percentile(d, 99))} | chat completions via Conduit p50 ${fmt(percentile(c, 50))} p99 ${fmt(percentile(c, 99))} | added p50 ${fmt(percentile(c, 50) - percentile(d, 50))} p99 ${fmt(percentile(c, 99) - percentile(d, 99))} | Conduit CPU ${(cpu / (perRound * rounds)).toFixed(0)} µs/request`,
  );
}

async function streamScenario(): Promise<void> {
  const seconds = { direct: 0, conduit: 0 };
  await load(direct, 16, 16, true);
  await load(viaConduit, 16, 16, true);
  for (let round = 0; round < Number(values.streamRounds); round++) {
    for (const target of round % 2 === 0 ? [direct, viaConduit] : [viaConduit, direct])
      seconds[target.name] += (await load(target, 16, 16, true)).seconds;
  }
  const deltas = 16 * Number(values.streamRounds) * Number(values.deltas);
  console.log(
    `16 streams × ${values.deltas} deltas: messages direct ${(deltas / seconds.direct / 1000).toFixed(1)} k deltas/s | chat completions via Conduit ${(deltas / seconds.conduit / 1000).toFixed(1)} k deltas/s | ratio ${(seconds.direct / seconds.conduit).toFixed(2)}×`,
  );
}

try {
  console.log("POST /v1/chat/completions (Claude model, through the pool) vs POST /v1/messages on the fake upstream directly");
  await latencyScenario(1);
  await latencyScenario(16);
  await streamScenario();
} finally {
  upstream.child.disconnect();
  const exited = new Promise((resolve) => conduit.child.once("exit", resolve));
  conduit.child.disconnect();
  if (values.profile) {
    await exited;
    printCpuProfileSummary(values.profile, 25);
  }
}
