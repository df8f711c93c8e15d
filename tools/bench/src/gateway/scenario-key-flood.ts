// `bench:gateway` key flood: N distinct virtual keys (governance on Redis, a throwaway `redis-server`)
// each making its first call within a minute, against the same number of calls on one key, same run:
// CPU per request, Redis commands per request (INFO commandstats of that server alone) and the memory
// each new key costs the serving process (heap and RSS after a GC).
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import { childCpu, childMemory, startChild } from "./child-protocol.js";
import { requestBody } from "./gateway-targets.js";
import { load } from "./http-load.js";
import { rows } from "./results.js";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function throwawayRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  // Ready once it answers a PING (it takes a moment to listen).
  for (let tries = 0; ; tries++) {
    const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => {});
    const answered = await client.connect().then(
      () => client.ping().then(() => true),
      () => false,
    );
    client.disconnect();
    if (answered) break;
    if (tries > 100) throw new Error(`redis-server did not answer on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `redis://127.0.0.1:${port}`, process: redis };
}

/** Calls per command name so far (INFO commandstats: commands inside Lua scripts count too). */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info("commandstats");
  return new Map([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((match) => [match[1] as string, Number(match[2])]));
}

/** Commands per request between two readings, the busiest first: "evalsha 2.00, get 1.00". */
function perRequest(before: Map<string, number>, after: Map<string, number>, requests: number): { total: number; top: string } {
  const deltas = [...after]
    .map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / requests] as const)
    .filter(([name, calls]) => calls > 0 && name !== "info");
  deltas.sort((a, b) => b[1] - a[1]);
  return {
    total: deltas.reduce((sum, [, calls]) => sum + calls, 0),
    top: deltas
      .slice(0, 6)
      .map(([name, calls]) => `${name} ${calls.toFixed(2)}`)
      .join(", "),
  };
}

export async function keyFlood(anthropicUrl: string, keys: number): Promise<void> {
  const redisServer = await throwawayRedis();
  const redis = new Redis(redisServer.url);
  const created = Date.now();
  const conduit = await startChild("conduit (virtual keys)", new URL("./gateway-conduit.ts", import.meta.url), [
    anthropicUrl,
    "keys",
    redisServer.url,
    String(keys),
  ]);
  const port = conduit.ports.http as number;
  const body = requestBody(false);
  const call = (key: string) => ({ port, path: "/v1/messages", headers: { "x-api-key": key, "anthropic-version": "2023-06-01" }, body });
  try {
    console.log(`\nkey flood: ${keys} virtual keys on Redis (created in ${((Date.now() - created) / 1000).toFixed(1)} s), c=16`);
    await load(call("sk-conduit-bench-0"), 16, 500);
    const measure = async (label: string, pick: (index: number) => ReturnType<typeof call>, offset: number) => {
      const memoryBefore = await childMemory(conduit);
      const commandsBefore = await commandCalls(redis);
      const cpuBefore = await childCpu(conduit);
      const result = await load((index) => pick(index + offset), 16, keys);
      const cpu = ((await childCpu(conduit)) - cpuBefore) / keys;
      const commands = perRequest(commandsBefore, await commandCalls(redis), keys);
      const memoryAfter = await childMemory(conduit);
      const heapPerKey = (memoryAfter.heap - memoryBefore.heap) / keys;
      const rssPerKey = (memoryAfter.rss - memoryBefore.rss) / keys;
      const failed = [...result.failures].map(([status, count]) => `${status} ×${count}`).join(", ");
      rows.push({
        scenario: "key-flood",
        cell: label,
        gateway: "conduit",
        requests: keys,
        failed,
        cpuUsPerRequest: cpu,
        note: `${commands.total.toFixed(2)} Redis commands/request (${commands.top}); heap ${heapPerKey.toFixed(0)} B/key; RSS ${rssPerKey.toFixed(0)} B/key; ${result.seconds.toFixed(1)} s`,
      });
      console.log(
        `  ${label.padEnd(22)} ${`${cpu.toFixed(0)} µs CPU/request`.padEnd(20)} ${`${commands.total.toFixed(2)} Redis commands/request`.padEnd(28)} heap ${(heapPerKey / 1024).toFixed(2)} KB/key, RSS ${(rssPerKey / 1024).toFixed(2)} KB/key, ${result.seconds.toFixed(1)} s ${failed}\n    ${commands.top}`,
      );
    };
    await measure("one key, N calls", () => call("sk-conduit-bench-0"), 0);
    await measure("N keys, a call each", (index) => call(`sk-conduit-bench-${index}`), 0);
  } finally {
    redis.disconnect();
    conduit.child.disconnect();
    redisServer.process.kill();
  }
}
