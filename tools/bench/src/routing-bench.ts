/**
 * `bench:routing`: the CPU a routing name over three deployments costs per call against a single
 * target, in one process, same run, alternating rounds: `plan()` (the strategy's order; least-busy
 * reads the in-flight counts) and `serveWithFallbacks()` (in-flight counting, the latency sample,
 * the header) around a target that answers at once — so the figure is routing's own, not a
 * provider's. Goal: at most 10 µs more CPU per call for every strategy.
 *
 * It reaches into the proxy's source (routing is internal to `@conduit-ai/proxy`).
 * Options: --calls 100000 (per round and side) --rounds 5
 */
import { parseArgs } from "node:util";
import { rawResponse } from "@conduit-ai/server-core";
import { serveWithFallbacks } from "../../../packages/proxy/src/routing/fallbacks.js";
import { type ModelTable, createModelTable } from "../../../packages/proxy/src/routing/model-table.js";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "100000" }, rounds: { type: "string", default: "5" } },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const GOAL_US = 10;

const targets = [{ target: "vllm/llama3" }, { target: "ollama/llama3" }, { target: "groq/llama-3.3-70b-versatile" }];
const strategies = ["priority", "weighted", "least-busy", "latency", "cost"] as const;
const table: ModelTable = createModelTable(
  Object.fromEntries(strategies.map((strategy) => [strategy, { targets, strategy, fallbacks: [] }])),
);
const signal = new AbortController().signal;
const headers: Record<string, string> = {};
const setHeader = (name: string, value: string) => {
  headers[name] = value;
};
const answer = async (target: { name: string }) => ({ response: rawResponse("{}"), servedBy: target.name });

async function one(model: string): Promise<void> {
  const plan = await table.plan(model, { inputTokens: 1000, outputTokens: 200 });
  await serveWithFallbacks(plan.targets, signal, answer, { stats: plan.stats, setHeader });
}

/** CPU µs per call of `calls` calls to `model`. */
async function round(model: string): Promise<number> {
  const before = process.cpuUsage();
  for (let index = 0; index < calls; index++) await one(model);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)] as number;

// Warm-up: every path compiled before it is measured.
for (const model of ["vllm/llama3", ...strategies]) for (let index = 0; index < 20_000; index++) await one(model);
const single: number[] = [];
const routed: Record<string, number[]> = Object.fromEntries(strategies.map((strategy) => [strategy, []]));
for (let index = 0; index < rounds; index++) {
  single.push(await round("vllm/llama3"));
  for (const strategy of strategies) routed[strategy]?.push(await round(strategy));
}
const base = median(single);
console.log(`routing: ${calls} calls × ${rounds} rounds per side; CPU per call (median of rounds)`);
console.log(`  single target (vllm/llama3)       ${base.toFixed(2)} µs`);
let worst = 0;
for (const strategy of strategies) {
  const figure = median(routed[strategy] ?? []);
  worst = Math.max(worst, figure - base);
  console.log(`  three targets, ${strategy.padEnd(10)}         ${figure.toFixed(2)} µs  (+${(figure - base).toFixed(2)} µs)`);
}
console.log(`  worst added: ${worst.toFixed(2)} µs per call (goal ≤ ${GOAL_US} µs) ${worst <= GOAL_US ? "PASS" : "FAIL"}`);
