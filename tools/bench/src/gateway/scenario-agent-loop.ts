// `bench:gateway` coding-agent loop: 50 turns of `/v1/messages` whose context grows by a file read and
// a tool call per turn, to ≈ 150 K tokens of body at the last turn — what Claude Code sends. Each
// gateway plays the whole loop per round (c=1, rotating order); reported: added p50/p99 per turn and
// CPU per turn of the serving process.
import { childCpu, type GatewayChild } from "./child-protocol.js";
import { callFor, type GatewayName, type Ports } from "./gateway-targets.js";
import { describeFailures, load } from "./http-load.js";
import { fmt, rows } from "./results.js";
import { percentile } from "../statistics.js";

const TURNS = 50;
/** ≈ 3 000 tokens of file content per turn (4 characters a token): 150 K tokens after 50 turns. */
const FILE_TEXT = "export function add(a: number, b: number): number { return a + b; } // ".repeat(170);

const tools = [
  {
    name: "read_file",
    description: "Read a file",
    input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

function turnBody(turn: number): string {
  const messages: unknown[] = [{ role: "user", content: "Refactor the project." }];
  for (let index = 0; index < turn; index++) {
    const id = `toolu_${String(index).padStart(4, "0")}`;
    messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "read_file", input: { path: `src/file-${index}.ts` } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: FILE_TEXT }] });
  }
  return JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 1024, system: "You are a coding agent.", tools, messages });
}

export async function agentLoop(ports: Ports, servers: Partial<Record<GatewayName, GatewayChild>>, rounds: number): Promise<void> {
  const gateways = (["direct", "pipe", "conduit", "portkey"] as const).filter((name) => name === "direct" || servers[name]);
  const bodies = Array.from({ length: TURNS }, (_, turn) => turnBody(turn));
  const samples = new Map<GatewayName, number[]>(gateways.map((name) => [name, []]));
  const cpu = new Map<GatewayName, number>(gateways.map((name) => [name, 0]));
  const failed = new Map<GatewayName, Map<string, number>>(gateways.map((name) => [name, new Map()]));
  for (let round = 0; round <= rounds; round++) {
    for (const name of gateways.map((_, index) => gateways[(index + round) % gateways.length] as GatewayName)) {
      const server = servers[name];
      const before = server ? await childCpu(server) : 0;
      const result = await load((turn) => callFor(name, "messages", bodies[turn] as string, ports)!, 1, TURNS);
      if (round === 0) continue; // the warm-up round
      cpu.set(name, (cpu.get(name) ?? 0) + (server ? (await childCpu(server)) - before : 0));
      samples.get(name)?.push(...result.latencies);
      for (const [status, count] of result.failures) failed.get(name)?.set(status, (failed.get(name)?.get(status) ?? 0) + count);
    }
  }
  const lastBytes = Buffer.byteLength(bodies[TURNS - 1] as string);
  const cellName = `agent loop: ${TURNS} turns to ${(lastBytes / 1024).toFixed(0)} KB of body, a tool call per turn`;
  console.log(`\n${cellName} (${rounds} rounds)`);
  console.log("  gateway   added p50  added p99  CPU/turn   failed");
  const direct = (samples.get("direct") ?? []).sort((a, b) => a - b);
  for (const name of gateways.filter((name) => name !== "direct")) {
    const sorted = (samples.get(name) ?? []).sort((a, b) => a - b);
    const ok = sorted.length > 0;
    const addedP50 = ok ? percentile(sorted, 50) - percentile(direct, 50) : undefined;
    const addedP99 = ok ? percentile(sorted, 99) - percentile(direct, 99) : undefined;
    const cpuPerTurn = ok ? (cpu.get(name) ?? 0) / (TURNS * rounds) : undefined;
    const failures = describeFailures(failed.get(name) ?? new Map());
    rows.push({
      scenario: "agent-loop",
      cell: cellName,
      gateway: name,
      requests: TURNS * rounds,
      failed: failures,
      addedP50Ms: addedP50,
      addedP99Ms: addedP99,
      cpuUsPerRequest: cpuPerTurn,
    });
    console.log(
      `  ${name.padEnd(9)} ${fmt(addedP50, " ms").padEnd(10)} ${fmt(addedP99, " ms").padEnd(10)} ${(cpuPerTurn === undefined ? "—" : `${cpuPerTurn.toFixed(0)} µs`).padEnd(10)} ${failures}`,
    );
  }
}
