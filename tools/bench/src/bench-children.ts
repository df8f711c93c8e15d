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
