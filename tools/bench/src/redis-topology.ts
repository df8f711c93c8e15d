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
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
// The conformance suites' throwaway topology (same binaries, same settings), reused rather than copied.
import { startRedisCluster } from "../../../packages/conformance/src/fixtures/redis-topology.js";
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
const root = fileURLToPath(new URL("../../..", import.meta.url));

if (!values.source) {
  execFileSync("pnpm", ["exec", "nx", "run", "@conduit-ai/cli:build", "--output-style=static"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const config = join(mkdtempSync(join(tmpdir(), "bench-topology-")), "config.json");
// Ceiling raised (the figure is throughput, not refusals); health counted, so each request is one Redis call.
writeFileSync(config, JSON.stringify({ server: { rateLimit: { maxRequests: 1_000_000_000, windowMs: 60_000, skipPaths: [] } } }));

interface Server {
  process: ChildProcess;
  url: string;
}

function startServe(env: Record<string, string>): Promise<Server> {
  const entry = values.source
    ? ["--conditions=@conduit-ai/source", "--import", "tsx", join(root, "packages/cli/src/bin.ts")]
    : [join(root, "packages/cli/bin/conduit.mjs")];
  const child = spawn(process.execPath, [...entry, "serve", "--port", "0", "--host", "127.0.0.1", "--config", config], {
    env: { ...process.env, REDIS_URL: "", REDIS_CLUSTER_NODES: "", REDIS_SENTINELS: "", PORT: "", REDIS_KEY_PREFIX: prefix, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const port = /Conduit listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port) resolve({ process: child, url: `http://127.0.0.1:${port}/api/health` });
    });
    child.once("exit", (code) => reject(new Error(`conduit serve exited with ${code}`)));
  });
}

/** The limiter is really on: 200 with its headers (a store that could not answer would be 503). */
async function check(server: Server, label: string): Promise<void> {
  const response = await fetch(server.url);
  if (response.status !== 200 || !response.headers.get("x-ratelimit-limit"))
    throw new Error(`${label}: ${response.status}, no rate-limit headers`);
}

async function measure(server: Server): Promise<number> {
  const result = await autocannon({ url: server.url, connections, duration, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors on ${server.url}`);
  return result.requests.average;
}

const stopServe = (server: Server) =>
  new Promise<void>((resolve) => {
    if (server.process.exitCode !== null) return resolve();
    server.process.once("exit", () => resolve());
    server.process.kill("SIGTERM");
  });

const cluster = await startRedisCluster();
const variants: Array<{ label: string; server: Server }> = [];
try {
  variants.push({ label: "one Redis server", server: await startServe({ REDIS_URL }) });
  variants.push({ label: "Redis Cluster (3+3)", server: await startServe({ REDIS_CLUSTER_NODES: cluster.seeds }) });
  for (const variant of variants) await check(variant.server, variant.label);
  // Warm-up: JIT, connections, the cluster client's slot map; not counted.
  for (const variant of variants) await autocannon({ url: variant.server.url, connections, duration: 1 });
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
