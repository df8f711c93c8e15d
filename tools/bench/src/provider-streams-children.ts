/**
 * The two child processes of `bench:provider-streams` and how the load generator talks to them.
 * Unlike `bench-children.ts` the children do not inherit this process's `execArgv`: Conduit runs
 * as users run it, plain node on the built packages, unless `--source` asks for tsx.
 */
import { type ChildProcess, fork } from "node:child_process";

/** Forks `file` (relative to this module) and resolves once it reported its port over IPC. */
export function forkChild(file: string, args: string[], execArgv: string[]): Promise<{ child: ChildProcess; port: number }> {
  // stdout to /dev/null: Conduit's request log lines go there, as a file would take them.
  const child = fork(new URL(file, import.meta.url), args, { execArgv, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ child, port: message.port }));
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

/** Replies come back in order: one queue of waiting callers per child. */
const waiting = new Map<ChildProcess, Array<(reply: unknown) => void>>();

/** Sends `message` to `child` and resolves with its reply. */
export function ask<T>(child: ChildProcess, message: string): Promise<T> {
  let queue = waiting.get(child);
  if (queue === undefined) {
    const callers: Array<(reply: unknown) => void> = [];
    waiting.set(child, callers);
    child.on("message", (reply) => callers.shift()?.(reply));
    queue = callers;
  }
  const callers = queue;
  return new Promise((resolve) => {
    callers.push(resolve as (reply: unknown) => void);
    child.send(message);
  });
}
