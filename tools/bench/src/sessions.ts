/**
 * `bench:sessions`: heap held by conversation memory after 20 000 generations with new
 * `sessionId`s (the local provider), unbounded (what the runtime did before its limits) vs the
 * default bounds, each in a fresh process with `--expose-gc`, side by side.
 *
 * pnpm --filter @conduit-ai/bench bench:sessions [-- --sessions 20000]
 */
import { fork } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { sessions: { type: "string", default: "20000" }, variant: { type: "string" } },
  args: process.argv.slice(2).filter((a) => a !== "--"),
});
const sessions = Number(values.sessions);

interface Measure {
  variant: string;
  kept: number;
  heapGrowthMiB: number;
}

async function measure(variant: "unbounded" | "default"): Promise<Measure> {
  const { createRuntime } = await import("@conduit-ai/runtime");
  const { silentLogger } = await import("@conduit-ai/server-core");
  const memoryLimits =
    variant === "unbounded"
      ? {
          maxSessions: Number.POSITIVE_INFINITY,
          maxBytes: Number.POSITIVE_INFINITY,
          maxMessagesPerSession: Number.POSITIVE_INFINITY,
          ttlMs: Number.POSITIVE_INFINITY,
        }
      : {};
  const runtime = createRuntime({ env: {}, logger: silentLogger, memoryLimits });
  await runtime.generate({ input: { text: "warm up" } });
  const gc = (globalThis as { gc?: () => void }).gc as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < sessions; index++)
    await runtime.generate({ input: { text: `hello ${index}` }, sessionId: `session-${index}` });
  gc();
  const after = process.memoryUsage().heapUsed;
  const kept = (await runtime.memory.listSessions()).length;
  await runtime.close();
  return { variant, kept, heapGrowthMiB: (after - before) / 1024 / 1024 };
}

if (values.variant) {
  const result = await measure(values.variant as "unbounded" | "default");
  process.send?.(result);
} else {
  const results: Measure[] = [];
  for (const variant of ["unbounded", "default"] as const) {
    const child = fork(new URL(import.meta.url), ["--variant", variant, "--sessions", String(sessions)], {
      execArgv: ["--conditions=@conduit-ai/source", "--import", "tsx", "--expose-gc"],
    });
    results.push(await new Promise<Measure>((resolve) => child.once("message", (message: Measure) => resolve(message))));
    await new Promise((resolve) => child.once("exit", resolve));
  }
  console.log(`conversation memory after ${sessions} generations with new sessionIds (local provider)`);
  console.log("variant     sessions kept   heap growth");
  for (const result of results)
    console.log(`${result.variant.padEnd(11)} ${String(result.kept).padStart(13)}   ${result.heapGrowthMiB.toFixed(1).padStart(7)} MiB`);
  const [unbounded, bounded] = results as [Measure, Measure];
  console.log(`ratio bounded / unbounded heap growth: ${(bounded.heapGrowthMiB / unbounded.heapGrowthMiB).toFixed(3)}`);
}
