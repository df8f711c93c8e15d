/**
 * `bench:governance`: `POST /api/agent/generate` with virtual keys, limits and a budget on (Redis
 * store: one admit script in, one settle script out per request) against the same route with
 * governance off, side by side in one run. Both servers get the same body and the same
 * `x-api-key` header. Rounds alternate off / on (order reversed every other round); the ratio is
 * the median of the per-round ratios (goal: on / off ≥ 0.9).
 *
 * The `/v1/messages` passthrough is the goal's surface; until the proxy's gate wiring is on main,
 * this measures the `/api/agent/generate` path, which runs the same gate.
 *
 * Options: --framework hono  --rounds 5  --duration 3  --connections 50
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { median } from "./statistics.js";

const GOAL = 0.9;
const { values } = parseArgs({
  options: {
    framework: { type: "string", default: "hono" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
  args: process.argv.slice(2).filter((argument) => argument !== "--"),
});
const rounds = Number(values.rounds);
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const namespace = `bench:gov:${randomBytes(4).toString("hex")}`;
const modes = ["off", "on"] as const;
type Mode = (typeof modes)[number];

function startChild(mode: Mode): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = fork(new URL("./governance-server.ts", import.meta.url), [mode, values.framework, redisUrl, namespace], {
    execArgv: ["--conditions=@conduit-ai/source", "--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number; key?: string }) =>
      resolve({ child, url: `http://127.0.0.1:${message.port}/api/agent/generate`, key: message.key ?? "sk-conduit-unused" }),
    );
    child.once("exit", (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

const servers = { off: await startChild("off"), on: await startChild("on") };
const key = servers.on.key;

async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url,
    method: "POST",
    connections: Number(values.connections),
    duration: seconds,
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ input: { text: "hello bench" }, model: "echo", maxTokens: 16 }),
  });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

const redis = new Redis(redisUrl);
try {
  for (const mode of modes) await measure(servers[mode].url, 1);
  const throughput: Record<Mode, number[]> = { off: [], on: [] };
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? modes : ([...modes].reverse() as Mode[]);
    const figures = {} as Record<Mode, number>;
    for (const mode of order) figures[mode] = await measure(servers[mode].url, Number(values.duration));
    for (const mode of modes) throughput[mode].push(figures[mode]);
    ratios.push(figures.on / figures.off);
    console.log(`round ${round + 1}: off ${figures.off.toFixed(0)}, on ${figures.on.toFixed(0)} req/s`);
  }
  const ratio = median(ratios);
  console.log(
    `\nbench:governance (${values.framework}, /api/agent/generate, ${rounds} rounds × ${values.duration}s, ${values.connections} connections)`,
  );
  console.log(`  governance off               ${median(throughput.off).toFixed(0)} req/s`);
  console.log(
    `  virtual key + limits + budget ${median(throughput.on).toFixed(0)} req/s   ratio ${ratio.toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})   goal ≥ ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"}`,
  );
} finally {
  for (const { child } of Object.values(servers)) child.kill();
  const keys = await redis.keys(`*${namespace}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}
