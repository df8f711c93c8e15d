import { type ChildProcess, fork } from "node:child_process";

/** A forked bench process (fake upstream, Conduit server) once it has reported its port over IPC. */
export interface BenchChild {
  child: ChildProcess;
  port: number;
}

export function forkChild(url: URL, args: string[], extraExecArgv: string[] = []): Promise<BenchChild> {
  const child = fork(url, args, { stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [...process.execArgv, ...extraExecArgv] });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ child, port: message.port }));
    child.once("exit", (code) => reject(new Error(`${url.pathname} exited with ${code}`)));
  });
}

/** The CPU time (µs) a bench server has used so far, asked over IPC. */
export function childCpu({ child }: BenchChild): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (message: { cpu: number }) => resolve(message.cpu));
    child.send("cpu");
  });
}

/**
 * The child's side: reports `port` to the parent, answers each CPU question with this process's
 * CPU time (µs), and on disconnect runs `stop` and exits — with process.exit (not a signal) so
 * `--cpu-prof` writes its profile.
 */
export function serveParent(port: number, stop: () => Promise<void>): void {
  process.send?.({ port });
  process.on("message", () => {
    const usage = process.cpuUsage();
    process.send?.({ cpu: usage.user + usage.system });
  });
  process.on("disconnect", () => void stop().then(() => process.exit(0)));
}
