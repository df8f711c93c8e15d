/**
 * `bench:tracing`: the default stack with tracing on (every request sampled, batched OTLP/HTTP
 * protobuf export to a receiver on loopback that decodes every span) against the same stack with
 * tracing off, in the same run. Both servers run in child processes; rounds alternate (off, on, …)
 * and the printed ratio is the median of the per-round on / off throughput ratios (goal ≥ 0.9×).
 * The receiver's span count shows what the exporter delivered (the batch processor drops spans
 * when its queue of 2048 is full, as OpenTelemetry's SDK does by default).
 *
 * Options: --frameworks hono,express,fastify,koa  --rounds 5  --duration 3  --connections 50
 */
import { type ChildProcess, fork } from "node:child_process";
import { parseArgs } from "node:util";
import { startOtlpReceiver } from "@conduit-ai/telemetry/testing";
import autocannon from "autocannon";
import { median } from "./statistics.js";

const GOAL = 0.9;
const { values } = parseArgs({
  options: {
    frameworks: { type: "string", default: "hono,fastify" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const frameworks = values.frameworks.split(",").map((name) => name.trim());
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);

type Mode = "off" | "on";
interface Child {
  process: ChildProcess;
  url: string;
}

const receiver = await startOtlpReceiver();

function startChild(framework: string, mode: Mode): Promise<Child> {
  const child = fork(new URL("./tracing-server.ts", import.meta.url), [framework, mode, receiver.endpoint], {
    execArgv: ["--conditions=@conduit-ai/source", "--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ process: child, url: `http://127.0.0.1:${message.port}/api/items` }));
    child.once("exit", (code) => reject(new Error(`${framework} tracing ${mode} exited with ${code}`)));
  });
}

const stop = (child: Child) =>
  new Promise<void>((resolve) => {
    child.process.once("exit", () => resolve());
    child.process.disconnect();
    setTimeout(() => child.process.kill(), 10_000).unref();
  });

async function load(url: string): Promise<number> {
  const result = await autocannon({ url, connections, duration });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

console.log(`bench:tracing — default stack, tracing on (sampling 1.0, OTLP protobuf to a loopback receiver) vs off`);
console.log(`${rounds} rounds × ${duration} s, ${connections} connections; ratio = median of per-round on/off\n`);
let worst = Number.POSITIVE_INFINITY;
for (const framework of frameworks) {
  const [off, on] = [await startChild(framework, "off"), await startChild(framework, "on")];
  // Warm-up, and the check that tracing really exports: one traced request reaches the receiver.
  await load(off.url);
  await load(on.url);
  const ratios: number[] = [];
  const throughput: Record<Mode, number[]> = { off: [], on: [] };
  for (let round = 0; round < rounds; round++) {
    const offRps = await load(off.url);
    const onRps = await load(on.url);
    throughput.off.push(offRps);
    throughput.on.push(onRps);
    ratios.push(onRps / offRps);
  }
  receiver.clear();
  const before = receiver.spans.length;
  await fetch(on.url);
  await stop(on);
  await stop(off);
  const exported = receiver.spans.length - before;
  const ratio = median(ratios);
  worst = Math.min(worst, ratio);
  console.log(
    `${framework.padEnd(8)} off ${Math.round(median(throughput.off))} req/s, on ${Math.round(median(throughput.on))} req/s → ${ratio.toFixed(3)}× (goal ≥ ${GOAL}×)` +
      `  [spans flushed at stop: ${exported}, rounds: ${ratios.map((value) => value.toFixed(2)).join(" ")}]`,
  );
  if (exported === 0) throw new Error(`${framework}: tracing on exported no span`);
}
await receiver.close();
console.log(`\ntracing on/off, worst framework: ${worst.toFixed(3)}× (goal ≥ ${GOAL}×) ${worst >= GOAL ? "met" : "NOT met"}`);
