// Runs the real `conduit` CLI from source (as `pnpm conduit -- …` does) as a child process and
// waits for its ready line.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const READY_TIMEOUT_MS = 60_000;

/**
 * Starts `conduit <command> --config <file> --port 0` and resolves once it prints where it listens.
 *
 * @example
 * const conduit = await startConduit(root, "proxy", { proxy: { enabled: true, ... } });
 * // conduit.url is "http://127.0.0.1:<port>"; await conduit.stop()
 */
export async function startConduit(root, command, config) {
  const file = join(mkdtempSync(join(tmpdir(), "conduit-real-clients-")), "conduit.json");
  writeFileSync(file, JSON.stringify(config));
  const { FORCE_COLOR: _forced, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    [
      "--conditions=@conduit-ai/source",
      "--import",
      "tsx",
      "packages/cli/src/bin.ts",
      command,
      "--config",
      file,
      "--port",
      "0",
      "--host",
      "127.0.0.1",
    ],
    { cwd: root, env: { ...inherited, PORT: "", HOST: "", REDIS_URL: "", NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const port = /listening on http:\/\/[^:\s]+:(\d+)/.exec(output)?.[1];
    if (port)
      return {
        url: `http://127.0.0.1:${port}`,
        output: () => output,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      };
    if (child.exitCode !== null) throw new Error(`conduit ${command} exited (${child.exitCode}): ${output.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`conduit ${command} did not start within ${READY_TIMEOUT_MS} ms: ${output.trim()}`);
}
