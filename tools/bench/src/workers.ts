/**
 * `bench:workers`: what `conduit serve --workers 2` buys over `--workers 1` on this machine.
 * Both run the built command (`packages/cli/bin/conduit.mjs`) with the default stack and the
 * rate limiter on Redis (ceiling raised so nothing is refused, health not skipped), serving `GET /api/health`.
 * Rounds run 1 worker, 2 workers, and 2 workers with NODE_CLUSTER_SCHED_POLICY=none back to back;
 * the printed ratios (vs 1 worker) are medians of the per-round ratios. The load generator (autocannon) runs in this process and shares the cores,
 * so with C cores the ceiling is well below C.
 *
 * Options: --rounds 5  --duration 3  --connections 50  --source (run src through tsx)
 */
import { randomUUID } from "node:crypto";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { type ServeProcess, benchServeConfig, buildCliUnlessSource, measureServe, startServe, stopServe } from "./serve-process.js";
import { median } from "./statistics.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    source: { type: "boolean", default: false },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const prefix = `bench:workers:${randomUUID()}:`;

buildCliUnlessSource(values.source);

// The default stack, limiter ceiling raised and health counted: every request makes a Redis call.
const config = benchServeConfig("workers");

type Server = ServeProcess;

/** `policy` is Node's NODE_CLUSTER_SCHED_POLICY: "rr" (the primary hands out connections, the default) or "none" (the kernel does). */
function startWorkers(workers: number, policy: "rr" | "none" = "rr"): Promise<Server> {
  return startServe({
    source: values.source,
    config,
    args: ["--workers", String(workers)],
    env: { REDIS_URL, REDIS_KEY_PREFIX: `${prefix}${workers}${policy}:`, NODE_CLUSTER_SCHED_POLICY: policy },
  });
}

/** The stack is really there: 200 with the rate-limit headers, and the counter lives in Redis. */
async function check(server: Server, label: string, keyPrefix: string, redis: Redis): Promise<void> {
  const response = await fetch(server.url);
  if (response.status !== 200 || !response.headers.get("x-ratelimit-limit"))
    throw new Error(`${label}: ${response.status}, no rate-limit headers`);
  const [, keys] = await redis.scan("0", "MATCH", `${keyPrefix}ratelimit:*`, "COUNT", 1000);
  if (keys.length === 0) throw new Error(`${label}: no rate-limit key in Redis`);
}

const measure = (server: Server) => measureServe(server, connections, duration);

const redis = new Redis(REDIS_URL);
const variants = [
  { label: "serve --workers 1", server: await startWorkers(1), keyPrefix: `${prefix}1rr:` },
  { label: "serve --workers 2", server: await startWorkers(2), keyPrefix: `${prefix}2rr:` },
  { label: "serve --workers 2 (sched none)", server: await startWorkers(2, "none"), keyPrefix: `${prefix}2none:` },
];
try {
  for (const variant of variants) await check(variant.server, variant.label, variant.keyPrefix, redis);
  // Warm-up: JIT and connections, not counted.
  for (const variant of variants) await measureServe(variant.server, connections, 1);
  const rates = variants.map(() => [] as number[]);
  const ratios = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    // Back to back within a round, so each ratio compares the same moment of a noisy machine.
    const measured: number[] = [];
    for (const variant of variants) measured.push(await measure(variant.server));
    measured.forEach((rate, index) => {
      rates[index]?.push(rate);
      ratios[index]?.push(rate / (measured[0] as number));
    });
  }
  const cores = availableParallelism();
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  console.log(
    `GET /api/health, default stack, rate limiting on Redis; ${connections} connections, ${rounds} rounds × ${duration} s; autocannon on the same machine`,
  );
  console.log(
    `cores: ${cores} (os.availableParallelism; os.cpus: ${cpus().length}, ${cpus()[0]?.model ?? "unknown"}); load average at the end: ${load}`,
  );
  console.log(`${"".padEnd(32)}${"req/s".padStart(8)}  ratio vs 1 worker (median, spread)`);
  variants.forEach((variant, index) => {
    const variantRatios = ratios[index] as number[];
    const ratio =
      index === 0
        ? ""
        : `${median(variantRatios).toFixed(2)} (${Math.min(...variantRatios).toFixed(2)}–${Math.max(...variantRatios).toFixed(2)})`;
    console.log(
      `${variant.label.padEnd(32)}${Math.round(median(rates[index] as number[]))
        .toString()
        .padStart(8)}  ${ratio}`,
    );
  });
} finally {
  await Promise.all(variants.map((variant) => stopServe(variant.server)));
  const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
  for await (const keys of stream) if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
  redis.disconnect();
}
