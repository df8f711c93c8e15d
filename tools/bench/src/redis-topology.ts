/**
 * `bench:redis-topology`: the full stack with its rate limiter on a Redis Cluster (3 primaries +
 * 3 replicas started on loopback ports from `redis-server`) against the same stack on one Redis
 * server, in the same run. Two `conduit serve` processes from the built command, default stack,
 * limiter ceiling raised and `/api/health` counted so every request makes one Redis round trip.
 * Rounds measure one server, then the cluster, back to back; the printed ratio (cluster vs one
 * server) is the median of the per-round ratios. Goal: ≥ 0.8.
 *
 * Options: --rounds 5  --duration 3  --connections 50  --source (run src through tsx)
 */
import { randomUUID } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
// The conformance suites' throwaway topology (same binaries, same settings), reused rather than copied.
import { startRedisCluster } from "../../../packages/conformance/src/fixtures/redis-topology.js";
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
const prefix = `bench:topology:${randomUUID()}:`;

buildCliUnlessSource(values.source);

// The default stack, limiter ceiling raised and health counted: every request makes a Redis call.
const config = benchServeConfig("topology");

type Server = ServeProcess;

function startTopologyServe(env: Record<string, string>): Promise<Server> {
  return startServe({ source: values.source, config, env: { REDIS_KEY_PREFIX: prefix, ...env } });
}

/** The limiter is really on: 200 with its headers (a store that could not answer would be 503). */
async function check(server: Server, label: string): Promise<void> {
  const response = await fetch(server.url);
  if (response.status !== 200 || !response.headers.get("x-ratelimit-limit"))
    throw new Error(`${label}: ${response.status}, no rate-limit headers`);
}

const measure = (server: Server) => measureServe(server, connections, duration);

const cluster = await startRedisCluster();
const variants: Array<{ label: string; server: Server }> = [];
try {
  variants.push({ label: "one Redis server", server: await startTopologyServe({ REDIS_URL }) });
  variants.push({ label: "Redis Cluster (3+3)", server: await startTopologyServe({ REDIS_CLUSTER_NODES: cluster.seeds }) });
  for (const variant of variants) await check(variant.server, variant.label);
  // Warm-up: JIT, connections, the cluster client's slot map; not counted.
  for (const variant of variants) await measureServe(variant.server, connections, 1);
  const rates = variants.map(() => [] as number[]);
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const measured: number[] = [];
    for (const variant of variants) measured.push(await measure(variant.server));
    for (const [index, rate] of measured.entries()) rates[index]?.push(rate);
    ratios.push((measured[1] as number) / (measured[0] as number));
  }
  console.log(
    `GET /api/health, default stack, rate limiting on Redis; ${connections} connections, ${rounds} rounds × ${duration} s; ` +
      `cores ${availableParallelism()}, load average at the end ${loadavg()
        .map((value) => value.toFixed(1))
        .join(" ")}`,
  );
  for (const [index, variant] of variants.entries()) {
    const rate = Math.round(median(rates[index] as number[]));
    console.log(`${variant.label.padEnd(24)}${rate.toString().padStart(8)} req/s`);
  }
  const ofMedians = median(rates[1] as number[]) / median(rates[0] as number[]);
  console.log(
    `cluster vs one server: ${median(ratios).toFixed(2)}× (median of the per-round ratios; rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; ratio of the medians ${ofMedians.toFixed(2)}×; goal ≥ 0.80)`,
  );
} finally {
  await Promise.all(variants.map((variant) => stopServe(variant.server)));
  await cluster.stop();
  const redis = new Redis(REDIS_URL);
  const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
  for await (const keys of stream) if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
  redis.disconnect();
}
