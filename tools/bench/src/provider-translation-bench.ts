/**
 * `bench:provider-translation`: the CPU Conduit spends on a chat completion translated to the
 * Gemini API (`gemini/gemini-2.5-flash`, a `google` provider) against one to an OpenAI-compatible
 * upstream (`compat/llama3`), same run, alternating rounds, the same answer from both fakes (eight
 * text pieces). Four processes: the two fakes, Conduit, and this load generator. For JSON and
 * streamed calls: Conduit's CPU per request in each round, the median of rounds with its spread
 * (min–max), and the ratio of medians. Goal: Gemini ≤ 1.2× the OpenAI-compatible CPU.
 *
 * Options: --requests 400 (per round and side) --rounds 5 --concurrency 4 --only json|stream
 *          --profile <dir> (a CPU profile of Conduit's process, its top functions printed)
 *          --side gemini|compat (that side alone, e.g. to profile it; no ratio)
 */
import { Agent, request } from "node:http";
import { parseArgs } from "node:util";
import { type BenchChild, childCpu, forkChild } from "./bench-children.js";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "400" },
    rounds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "4" },
    profile: { type: "string" },
    only: { type: "string" },
    side: { type: "string" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const GOAL_RATIO = 1.2;
const CLIENT_KEY = "bench-client-key-0123456789";

const gemini = await forkChild(new URL("./provider-translation-upstream.ts", import.meta.url), ["gemini"]);
const openai = await forkChild(new URL("./provider-translation-upstream.ts", import.meta.url), ["openai"]);
const conduit: BenchChild = await forkChild(
  new URL("./provider-translation-server.ts", import.meta.url),
  [`http://127.0.0.1:${gemini.port}`, `http://127.0.0.1:${openai.port}`],
  values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [],
);

const SIDES = { gemini: "gemini/gemini-2.5-flash", compat: "compat/llama3" } as const;
type Side = keyof typeof SIDES;

function call(agent: Agent, model: string, stream: boolean): Promise<void> {
  const body = JSON.stringify({
    model,
    messages: [{ role: "user", content: "Tell me about the fox." }],
    ...(stream ? { stream, stream_options: { include_usage: true } } : {}),
  });
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: conduit.port,
        path: "/v1/chat/completions",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${CLIENT_KEY}` },
      },
      (response) => {
        response.resume();
        response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`${model}: status ${response.statusCode}`))));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** Conduit's CPU µs per request over `count` calls to `model`. */
async function round(model: string, count: number, stream: boolean): Promise<number> {
  const concurrency = Number(values.concurrency);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const before = await childCpu(conduit);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await call(agent, model, stream);
      }
    }),
  );
  const used = (await childCpu(conduit)) - before;
  agent.destroy();
  return used / count;
}

const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)] as number;
const spread = (figures: number[]) => `${Math.min(...figures).toFixed(0)}–${Math.max(...figures).toFixed(0)}`;

async function compare(stream: boolean): Promise<boolean> {
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  for (const model of Object.values(SIDES)) await round(model, 200, stream); // warm-up: both paths compiled
  const figures: Record<Side, number[]> = { gemini: [], compat: [] };
  for (let index = 0; index < rounds; index++) {
    const order: Side[] = index % 2 === 0 ? ["gemini", "compat"] : ["compat", "gemini"];
    for (const side of order)
      if (values.side === undefined || values.side === side) figures[side].push(await round(SIDES[side], requests, stream));
  }
  if (values.side !== undefined) {
    const side = figures[values.side as Side] ?? [];
    console.log(`  ${stream ? "streamed" : "JSON"} ${values.side} alone: ${median(side).toFixed(0)} µs (${spread(side)})`);
    return true;
  }
  const ratio = median(figures.gemini) / median(figures.compat);
  const kind = stream ? "streamed" : "JSON    ";
  console.log(
    `  ${kind} gemini ${median(figures.gemini).toFixed(0)} µs (${spread(figures.gemini)}) | openai-compatible ${median(figures.compat).toFixed(0)} µs (${spread(figures.compat)}) | ratio ${ratio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×) ${ratio <= GOAL_RATIO ? "PASS" : "FAIL"}`,
  );
  return ratio <= GOAL_RATIO;
}

let passed = true;
try {
  console.log(
    `POST /v1/chat/completions translated to Gemini vs to an OpenAI-compatible upstream: Conduit CPU per request, median of ${values.rounds} rounds × ${values.requests} (min–max), c=${values.concurrency}`,
  );
  if (values.only !== "stream") passed = (await compare(false)) && passed;
  if (values.only !== "json") passed = (await compare(true)) && passed;
} finally {
  gemini.child.disconnect();
  openai.child.disconnect();
  const exited = new Promise((resolve) => conduit.child.once("exit", resolve));
  conduit.child.disconnect();
  if (values.profile) {
    await exited;
    printCpuProfileSummary(values.profile, 25);
  }
}
process.exitCode = passed ? 0 : 1;
