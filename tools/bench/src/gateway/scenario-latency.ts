// `bench:gateway` latency cells: added p50/p99 and CPU per request at each concurrency, JSON and
// streamed, on `/v1/messages` and `/v1/chat/completions`, for the pipe, Conduit and Portkey side by
// side. Rounds rotate the gateways' order; the CPU is read from each serving process.
import { childUsage, type GatewayChild } from "./child-protocol.js";
import { callFor, type GatewayName, type Ports, requestBody, type Surface } from "./gateway-targets.js";
import { describeFailures, load } from "./http-load.js";
import { fmt, rows } from "./results.js";
import { percentile } from "../statistics.js";

export interface LatencyOptions {
  concurrencies: number[];
  requests: number;
  streamRequests: number;
  rounds: number;
}

export async function latencyCells(
  ports: Ports,
  servers: Partial<Record<GatewayName, GatewayChild>>,
  options: LatencyOptions,
): Promise<void> {
  const gateways = (["direct", "pipe", "conduit", "portkey"] as const).filter((name) => name === "direct" || servers[name]);
  for (const surface of ["messages", "chat"] as Surface[]) {
    for (const stream of [false, true]) {
      for (const concurrency of options.concurrencies) {
        const total = stream ? options.streamRequests : options.requests;
        const perRound = Math.max(concurrency, Math.ceil(total / options.rounds));
        const body = requestBody(stream);
        const samples = new Map<GatewayName, number[]>(gateways.map((name) => [name, []]));
        const cpu = new Map<GatewayName, number>(gateways.map((name) => [name, 0]));
        const allocated = new Map<GatewayName, number>(gateways.map((name) => [name, 0]));
        const failures = new Map<GatewayName, Map<string, number>>(gateways.map((name) => [name, new Map()]));
        for (const name of gateways) await load(callFor(name, surface, body, ports)!, concurrency, Math.min(200, perRound));
        for (let round = 0; round < options.rounds; round++) {
          for (const name of gateways.map((_, index) => gateways[(index + round) % gateways.length] as GatewayName)) {
            const server = servers[name];
            const before = server ? await childUsage(server) : undefined;
            const result = await load(callFor(name, surface, body, ports)!, concurrency, perRound);
            const after = server ? await childUsage(server) : undefined;
            if (before && after) {
              cpu.set(name, (cpu.get(name) ?? 0) + after.cpu - before.cpu);
              allocated.set(name, (allocated.get(name) ?? 0) + after.allocated - before.allocated);
            }
            samples.get(name)?.push(...result.latencies);
            for (const [status, count] of result.failures) failures.get(name)?.set(status, (failures.get(name)?.get(status) ?? 0) + count);
          }
        }
        const label = `${surface === "messages" ? "/v1/messages" : "/v1/chat/completions"} ${stream ? "stream" : "JSON"} c=${concurrency}`;
        const direct = (samples.get("direct") ?? []).sort((a, b) => a - b);
        console.log(`\n${label} (${perRound * options.rounds} requests per gateway)`);
        console.log("  gateway   p50        p99        added p50  added p99  CPU/request  alloc/request  failed");
        for (const name of gateways) {
          const sorted = (samples.get(name) ?? []).sort((a, b) => a - b);
          const ok = sorted.length > 0;
          const p50 = ok ? percentile(sorted, 50) : undefined;
          const p99 = ok ? percentile(sorted, 99) : undefined;
          const addedP50 = name === "direct" || p50 === undefined ? undefined : p50 - percentile(direct, 50);
          const addedP99 = name === "direct" || p99 === undefined ? undefined : p99 - percentile(direct, 99);
          const cpuPerRequest = name === "direct" || !ok ? undefined : (cpu.get(name) ?? 0) / (perRound * options.rounds);
          const kbPerRequest = cpuPerRequest === undefined ? undefined : (allocated.get(name) ?? 0) / 1024 / (perRound * options.rounds);
          const failed = describeFailures(failures.get(name) ?? new Map());
          rows.push({
            scenario: "latency",
            cell: label,
            gateway: name,
            requests: perRound * options.rounds,
            failed,
            p50Ms: p50,
            p99Ms: p99,
            addedP50Ms: addedP50,
            addedP99Ms: addedP99,
            cpuUsPerRequest: cpuPerRequest,
            allocatedKbPerRequest: kbPerRequest,
          });
          console.log(
            `  ${name.padEnd(9)} ${fmt(p50, " ms").padEnd(10)} ${fmt(p99, " ms").padEnd(10)} ${fmt(addedP50, " ms").padEnd(10)} ${fmt(addedP99, " ms").padEnd(10)} ${(cpuPerRequest === undefined ? "—" : `${cpuPerRequest.toFixed(0)} µs`).padEnd(12)} ${(kbPerRequest === undefined ? "—" : `${kbPerRequest.toFixed(1)} KB`).padEnd(14)} ${failed}`,
          );
        }
      }
    }
  }
}
