import { format } from "node:util";
import { vi } from "vitest";
import { main } from "../main.js";

/**
 * Runs `conduit <args>` in this process, as `runConduit` runs it in a child (the same environment:
 * the test runner's minus FORCE_COLOR, a clean PORT and REDIS_URL, then `env`), and gives its exit
 * code and what it printed. For what the command line decides before anything starts (a usage
 * mistake, a refused config, help): a child costs about a second of CPU to load `conduit` each
 * time, which made these cases the bulk of the suite's CPU. A command that calls `process.exit`
 * here fails the test instead of ending the test worker. The code of a command that ran to its end
 * is `process.exitCode` or 0, as a child's would be; a command that starts a server would be left
 * running in the test worker, so those stay in child processes.
 */
export async function runConduitInProcess(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { FORCE_COLOR: _forced, ...inherited } = process.env;
  const printed = { stdout: "", stderr: "" };
  const printTo =
    (stream: "stdout" | "stderr") =>
    (...values: unknown[]) => {
      printed[stream] += `${format(...values)}\n`;
    };
  const writeTo = (stream: "stdout" | "stderr") => (chunk: string | Uint8Array) => {
    printed[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  };
  const toStdout = printTo("stdout");
  const toStderr = printTo("stderr");
  const spies = [
    vi.spyOn(console, "log").mockImplementation(toStdout),
    vi.spyOn(console, "info").mockImplementation(toStdout),
    vi.spyOn(console, "warn").mockImplementation(toStderr),
    vi.spyOn(console, "error").mockImplementation(toStderr),
    vi.spyOn(process.stdout, "write").mockImplementation(writeTo("stdout") as typeof process.stdout.write),
    vi.spyOn(process.stderr, "write").mockImplementation(writeTo("stderr") as typeof process.stderr.write),
    vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`conduit called process.exit(${code}) in-process`);
    }),
  ];
  const exitCodeBefore = process.exitCode;
  try {
    const code = await main(args, { ...inherited, PORT: "", REDIS_URL: "", ...env });
    return { code: code ?? Number(process.exitCode ?? 0), ...printed };
  } finally {
    process.exitCode = exitCodeBefore;
    for (const spy of spies) spy.mockRestore();
  }
}
