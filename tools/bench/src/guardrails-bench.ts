/**
 * `bench:guardrails`: what `pii` + `secrets` (mask, both directions) cost on `/v1/messages`,
 * against the same proxy without guardrails, in the same run. Four processes: the fake upstream
 * (proxy-upstream.ts), Conduit off and on (guardrails-server.ts), and this load generator.
 *
 * - JSON: 2 KB prompts (a conversation of prose with no personal data, the common case), non-streamed;
 *   figure: requests per CPU-second of the serving process, on ÷ off (goal ≥ 0.9).
 * - Streams: answers of `--deltas` 64-character text deltas; figure: CPU per MB relayed, off ÷ on
 *   (goal ≥ 0.85).
 *
 * Rounds alternate which server goes first; each round's ratio is printed as median [min–max]. A
 * round needs a few seconds of CPU per server to say much on a shared machine: hence 8000 JSON
 * requests and 256 streams per round by default.
 *
 * Options: --requests 8000 (JSON, over all rounds) --rounds 4 --concurrency 16 --deltas 500 --streams 256 (per round)
 * --profile <dir> (the "on" server's CPU profile in <dir>/on, and its self-time summary)
 * --profile-off (with --profile: the "off" server's too, in <dir>/off, and the functions "on" spends its extra CPU in)
 */
import { Agent, request } from "node:http";
import { parseArgs } from "node:util";
import { type BenchChild, childCpu, forkChild } from "./bench-children.js";
import { printCpuProfileComparison, printCpuProfileSummary } from "./cpu-profile-summary.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "8000" },
    rounds: { type: "string", default: "4" },
    concurrency: { type: "string", default: "16" },
    deltas: { type: "string", default: "500" },
    streams: { type: "string", default: "256" },
    profile: { type: "string" },
    "profile-off": { type: "boolean", default: false },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});

const upstream = await forkChild(new URL("./proxy-upstream.ts", import.meta.url), [values.deltas]);
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const profiled = (name: "off" | "on") => values.profile !== undefined && (name === "on" || values["profile-off"]);
const server = (name: "off" | "on") =>
  forkChild(
    new URL("./guardrails-server.ts", import.meta.url),
    [upstreamUrl, name],
    profiled(name) ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}/${name}`] : [],
  );
const servers: Record<"off" | "on", BenchChild> = { off: await server("off"), on: await server("on") };

// About 2 KB of JSON: a few turns of ordinary prose (what guardrails scan and let pass).
const sentence = "The quarterly report shows steady growth in the northern region, with costs under plan. ";
const messages = [
  { role: "user", content: sentence.repeat(8) },
  { role: "assistant", content: sentence.repeat(6) },
  { role: "user", content: sentence.repeat(8) },
];
const jsonBody = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages });
const streamBody = JSON.stringify({
  model: "claude-sonnet-4-5",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});

function call(port: number, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/messages",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "bench-client-key-0123456789" },
      },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.byteLength;
        });
        response.on("end", () => (response.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${response.statusCode}`))));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** `count` calls, `concurrency` at a time; the serving process's CPU seconds and the bytes received. */
async function measured(server: BenchChild, body: string, concurrency: number, count: number): Promise<{ cpu: number; bytes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const before = await childCpu(server);
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        // Not `bytes += await …`: that reads `bytes` before the await, and concurrent calls would overwrite each other's counts.
        const received = await call(server.port, agent, body);
        bytes += received;
      }
    }),
  );
  agent.destroy();
  return { cpu: (await childCpu(server)) - before, bytes };
}

const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const perRound = Math.ceil(Number(values.requests) / rounds);
const streams = Number(values.streams);
type Round = { jsonCpu: number; streamCpu: number; streamBytes: number };
const measuredRounds: Record<"off" | "on", Round[]> = { off: [], on: [] };
for (const name of ["off", "on"] as const) {
  await measured(servers[name], jsonBody, concurrency, 300);
  await measured(servers[name], streamBody, 16, 16);
}
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
    const jsonCpu = (await measured(servers[name], jsonBody, concurrency, perRound)).cpu;
    const streamed = await measured(servers[name], streamBody, 16, streams);
    measuredRounds[name].push({ jsonCpu, streamCpu: streamed.cpu, streamBytes: streamed.bytes });
  }
}
// childCpu answers microseconds.
const sum = (name: "off" | "on", field: keyof Round) => measuredRounds[name].reduce((total, round) => total + round[field], 0);
const requestsPerCpuSecond = (name: "off" | "on") => (perRound * rounds) / (sum(name, "jsonCpu") / 1e6);
const cpuPerMb = (name: "off" | "on") => sum(name, "streamCpu") / (sum(name, "streamBytes") / 1_048_576);
/** The rounds' ratios as `median [min–max]`: on a shared machine one round's figure says little. */
function spreadOf(ratioOf: (off: Round, on: Round) => number): string {
  const ratios = measuredRounds.off.map((off, round) => ratioOf(off, measuredRounds.on[round] as Round)).sort((a, b) => a - b);
  const middle = ratios.length / 2;
  const median =
    ratios.length % 2 === 1 ? (ratios[Math.floor(middle)] as number) : ((ratios[middle - 1] as number) + (ratios[middle] as number)) / 2;
  return `${median.toFixed(3)} [${(ratios[0] as number).toFixed(3)}–${(ratios[ratios.length - 1] as number).toFixed(3)}]`;
}
console.log(`bench:guardrails — pii + secrets (mask, both directions) vs none, /v1/messages, ${rounds} rounds`);
console.log(`JSON 2 KB prompts (${jsonBody.length} B, c=${concurrency}, ${perRound} per round, ${perRound * rounds} requests each):`);
for (const name of ["off", "on"] as const)
  console.log(`  ${name.padEnd(3)} ${requestsPerCpuSecond(name).toFixed(0)} requests per CPU-second`);
console.log(`  ratio on/off ${(requestsPerCpuSecond("on") / requestsPerCpuSecond("off")).toFixed(3)} (goal ≥ 0.9)`);
console.log(`  per round: median [min–max] ${spreadOf((off, on) => off.jsonCpu / on.jsonCpu)}`);
console.log(`Streams (${values.deltas} deltas of 64 characters, ${streams} per round, ${streams * rounds} streams each):`);
for (const name of ["off", "on"] as const) console.log(`  ${name.padEnd(3)} ${(cpuPerMb(name) / 1000).toFixed(1)} ms CPU per MB`);
console.log(`  ratio off/on ${(cpuPerMb("off") / cpuPerMb("on")).toFixed(3)} (goal ≥ 0.85)`);
console.log(`  per round: median [min–max] ${spreadOf((off, on) => off.streamCpu / off.streamBytes / (on.streamCpu / on.streamBytes))}`);
for (const child of [servers.off, servers.on, upstream]) child.child.disconnect();
if (values.profile) {
  // A profiled server writes its profile as it exits.
  const exited = (name: "off" | "on") => new Promise((resolve) => servers[name].child.once("exit", resolve));
  await Promise.all([exited("on"), ...(values["profile-off"] ? [exited("off")] : [])]);
  printCpuProfileSummary(`${values.profile}/on`, 25);
  if (values["profile-off"]) printCpuProfileComparison(`${values.profile}/off`, `${values.profile}/on`, 25);
}
