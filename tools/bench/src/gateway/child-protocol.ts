// The IPC contract of `bench:gateway`'s children: a child reports what it serves once ({ ports }), then
// answers "cpu" with its CPU time (µs) and "memory" with its heap and RSS (bytes) after a full GC.
import { type ChildProcess, fork } from "node:child_process";

export interface GatewayChild {
  name: string;
  child: ChildProcess;
  ports: Record<string, number>;
}

type Answer = { cpu: number } | { heap: number; rss: number };

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

export const childCpu = async (child: GatewayChild) => (await ask<{ cpu: number }>(child, "cpu")).cpu;
export const childMemory = (child: GatewayChild) => ask<{ heap: number; rss: number }>(child, "memory");

/** The child's side. */
export function answerParent(ports: Record<string, number>, stop: () => Promise<void> = async () => {}): void {
  process.send?.({ ports });
  process.on("message", (question: string) => {
    if (question === "memory") {
      globalThis.gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      process.send?.({ heap: heapUsed, rss });
      return;
    }
    const usage = process.cpuUsage();
    process.send?.({ cpu: usage.user + usage.system });
  });
  process.on("disconnect", () => void stop().then(() => process.exit(0)));
}

export function stopChildren(children: GatewayChild[]): void {
  for (const { child } of children) if (child.connected) child.disconnect();
}
