// The IPC contract of `bench:gateway`'s children: a child reports what it serves once ({ ports }), then
// answers "cpu" with its CPU time (µs) and the bytes it allocated so far, and "memory" with its heap and
// RSS (bytes) after a full GC.
import { type ChildProcess, fork } from "node:child_process";
import { GCProfiler, getHeapStatistics } from "node:v8";

export interface GatewayChild {
  name: string;
  child: ChildProcess;
  ports: Record<string, number>;
}

type Answer = Usage | { heap: number; rss: number };

/** What a child used so far: CPU time (µs) and bytes allocated on its heap. */
export interface Usage {
  cpu: number;
  allocated: number;
}

/** Forks `url` (a .ts or .mjs file) with --expose-gc; resolves once it sent its ports. */
export function startChild(name: string, url: URL, args: string[] = []): Promise<GatewayChild> {
  const child = fork(url, args, {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    execArgv: [...process.execArgv, "--expose-gc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { ports: Record<string, number> }) => resolve({ name, child, ports: message.ports }));
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
  });
}

function ask<T extends Answer>({ child }: GatewayChild, question: "cpu" | "memory"): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (message: T) => resolve(message));
    child.send(question);
  });
}

export const childCpu = async (child: GatewayChild) => (await ask<Usage>(child, "cpu")).cpu;
export const childUsage = (child: GatewayChild) => ask<Usage>(child, "cpu");

/**
 * Bytes allocated on this process's heap since the first call. V8 keeps no such counter (Node 20), so
 * it is the heap in use now plus what every collection since freed, read from a running GC profiler
 * (restarted on each read; its cost is one record per collection).
 */
function allocationCounter(): () => number {
  const startedAt = getHeapStatistics().used_heap_size;
  let freed = 0;
  let profiler = new GCProfiler();
  profiler.start();
  return () => {
    for (const { beforeGC, afterGC } of profiler.stop()?.statistics ?? [])
      freed += beforeGC.heapStatistics.usedHeapSize - afterGC.heapStatistics.usedHeapSize;
    profiler = new GCProfiler();
    profiler.start();
    return getHeapStatistics().used_heap_size - startedAt + freed;
  };
}
export const childMemory = (child: GatewayChild) => ask<{ heap: number; rss: number }>(child, "memory");

/** The child's side. */
export function answerParent(ports: Record<string, number>, stop: () => Promise<void> = async () => {}): void {
  const allocated = allocationCounter();
  process.send?.({ ports });
  process.on("message", (question: string) => {
    if (question === "memory") {
      globalThis.gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      process.send?.({ heap: heapUsed, rss });
      return;
    }
    const usage = process.cpuUsage();
    process.send?.({ cpu: usage.user + usage.system, allocated: allocated() });
  });
  process.on("disconnect", () => void stop().then(() => process.exit(0)));
}

export function stopChildren(children: GatewayChild[]): void {
  for (const { child } of children) if (child.connected) child.disconnect();
}
