/**
 * `bench:governance`: the proxy's `POST /v1/messages` passthrough with virtual keys, limits and a
 * budget on (Redis store: one admit script in, one settle script out per request) against the
 * same passthrough with governance off, side by side in one run. Three processes: the fake
 * Anthropic upstream, and one Conduit server per mode; both get the same body and `x-api-key`.
 * A third server, `routed`, is `on` with the model a routing name over three deployments.
 * Rounds alternate the order (reversed every other round). Figures: throughput ratios (on / off,
 * median of the per-round ratios; goal ≥ 0.9; routed / off, goal ≥ 0.85) and CPU per request of
 * each server (read from the server process itself), which wanders less on a noisy machine.
 *
 * Options: --framework hono  --rounds 6  --duration 3  --connections 32
 *          env BENCH_DATABASE_URL: the usage history on PostgreSQL in the governance-on server
 *          --profile <dir> (a CPU profile of the governance-on server, its top functions printed)
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { type BenchChild, childCpu, forkChild } from "./bench-children.js";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";
import { median } from "./statistics.js";

const GOAL = 0.9;
const ROUTED_GOAL = 0.85;
const { values } = parseArgs({
  options: {
    framework: { type: "string", default: "hono" },
    rounds: { type: "string", default: "6" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    profile: { type: "string" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const rounds = Number(values.rounds);
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const namespace = `bench:gov:${randomBytes(4).toString("hex")}`;
const clientKey = `sk-conduit-bench-${randomBytes(16).toString("hex")}`;
const modes = ["off", "on", "routed"] as const;
type Mode = (typeof modes)[number];

const upstream = await forkChild(new URL("./proxy-upstream.ts", import.meta.url), ["0"]);
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const serverFile = new URL("./governance-server.ts", import.meta.url);
const servers: Record<Mode, BenchChild> = {
  off: await forkChild(serverFile, ["off", values.framework, redisUrl, namespace, upstreamUrl, clientKey]),
  on: await forkChild(
    serverFile,
    ["on", values.framework, redisUrl, namespace, upstreamUrl, clientKey],
    values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [],
  ),
  // Its own namespace: it mints the same key id.
  routed: await forkChild(serverFile, ["routed", values.framework, redisUrl, `${namespace}:routed`, upstreamUrl, clientKey]),
};
const body = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] });

/** Requests per second and the server's CPU µs per request over one measured window. */
async function measure(mode: Mode, seconds: number): Promise<{ rps: number; cpuPerRequest: number }> {
  const before = await childCpu(servers[mode]);
  const result = await autocannon({
    url: `http://127.0.0.1:${servers[mode].port}/v1/messages`,
    method: "POST",
    connections: Number(values.connections),
    duration: seconds,
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": clientKey },
    body,
  });
  const cpu = (await childCpu(servers[mode])) - before;
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${mode}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return { rps: result.requests.average, cpuPerRequest: cpu / Math.max(1, result.requests.total) };
}

const redis = new Redis(redisUrl);
try {
  // Warm both servers (JIT, sockets, the Redis scripts) before anything counts.
  for (const mode of [...modes, ...modes]) await measure(mode, 2);
  const figures: Record<Mode, { rps: number[]; cpu: number[] }> = {
    off: { rps: [], cpu: [] },
    on: { rps: [], cpu: [] },
    routed: { rps: [], cpu: [] },
  };
  const ratios: number[] = [];
  const routedRatios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? modes : ([...modes].reverse() as Mode[]);
    const measured = {} as Record<Mode, { rps: number; cpuPerRequest: number }>;
    for (const mode of order) measured[mode] = await measure(mode, Number(values.duration));
    for (const mode of modes) {
      figures[mode].rps.push(measured[mode].rps);
      figures[mode].cpu.push(measured[mode].cpuPerRequest);
    }
    ratios.push(measured.on.rps / measured.off.rps);
    routedRatios.push(measured.routed.rps / measured.off.rps);
    console.log(
      `round ${round + 1}: ${modes.map((mode) => `${mode} ${measured[mode].rps.toFixed(0)} req/s ${measured[mode].cpuPerRequest.toFixed(0)} µs`).join(", ")}`,
    );
  }
  const ratio = median(ratios);
  const cpuOff = median(figures.off.cpu);
  const cpuOn = median(figures.on.cpu);
  const cpuRouted = median(figures.routed.cpu);
  const routedRatio = median(routedRatios);
  console.log(
    `\nbench:governance (${values.framework}, POST /v1/messages passthrough, ${rounds} rounds × ${values.duration}s, ${values.connections} connections)`,
  );
  console.log(`  governance off                 ${median(figures.off.rps).toFixed(0)} req/s   CPU ${cpuOff.toFixed(0)} µs/request`);
  console.log(
    `  virtual key + limits + budget  ${median(figures.on.rps).toFixed(0)} req/s   CPU ${cpuOn.toFixed(0)} µs/request (${(cpuOn / cpuOff).toFixed(2)}×)`,
  );
  console.log(
    `  + routing over 3 deployments   ${median(figures.routed.rps).toFixed(0)} req/s   CPU ${cpuRouted.toFixed(0)} µs/request (${(cpuRouted / cpuOff).toFixed(2)}×)`,
  );
  console.log(
    `  throughput ratio on/off ${ratio.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})   goal ≥ ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"}`,
  );
  console.log(
    `  throughput ratio routed/off ${routedRatio.toFixed(2)} (rounds ${Math.min(...routedRatios).toFixed(2)}–${Math.max(...routedRatios).toFixed(2)}), CPU off/routed ${(cpuOff / cpuRouted).toFixed(2)}   goal ≥ ${ROUTED_GOAL}: ${routedRatio >= ROUTED_GOAL ? "met" : "NOT met"}`,
  );
} finally {
  for (const child of [servers.off, servers.on, servers.routed, upstream]) child.child.disconnect();
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}
if (values.profile) {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  printCpuProfileSummary(values.profile, 25);
}
