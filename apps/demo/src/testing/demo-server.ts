import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const mainFile = fileURLToPath(new URL("../main.ts", import.meta.url));

/**
 * Starts the demo as a user would (its own process, from source), on an ephemeral loopback
 * port, and resolves once its ready line names the port. Pair it with `stopProcess`.
 *
 * @example
 * const { child, port } = await startDemoServer(["--config", configFile]);
 */
export async function startDemoServer(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@conduit-ai/source", "--import", "tsx", mainFile, "--port", "0", "--host", "127.0.0.1", ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env },
    },
  );
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      // Kept whole: the ready line may arrive split across chunks.
      output += chunk.toString();
      const found = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (found) resolve(Number(found[1]));
    });
    child.on("exit", (code) => reject(new Error(`demo exited with ${code}`)));
  });
  return { child, port };
}

/**
 * Stops a spawned demo the way an operator would (SIGTERM: drain, then exit) and waits for it;
 * SIGKILL if it has not exited within `graceMs`. A test never leaves a server running behind it.
 *
 * @example
 * afterAll(() => stopProcess(child));
 */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
