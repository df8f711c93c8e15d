import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { conduitCommand } from "../../../../tools/test/conduit-command.js";

const running: ChildProcess[] = [];

export interface SpawnedConduit {
  child: ChildProcess;
  /** The ready line; rejects if the process exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/**
 * Runs `conduit <args>` (built when the build is current, else from source as `pnpm conduit -- <args>` does:
 * tools/test/conduit-command.ts) with a clean PORT and REDIS_URL and no colour forcing. `ready` resolves with the first stdout line that starts with
 * `readyPrefix` (`conduit proxy` prints "Conduit proxy listening on …").
 */
export function spawnConduit(args: string[], env: NodeJS.ProcessEnv = {}, readyPrefix = "Conduit listening on "): SpawnedConduit {
  // The test runner's FORCE_COLOR would override NO_COLOR and the TTY check in the child.
  const { FORCE_COLOR: _forced, ...inherited } = process.env;
  const child = spawn(process.execPath, [...conduitCommand(), ...args], {
    env: { ...inherited, PORT: "", REDIS_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", () => {
      const line = stdout.split("\n").find((text) => text.startsWith(readyPrefix));
      if (line) resolve(line);
    });
    void exited.then((code) => reject(new Error(`conduit exited with ${code}: ${stderr}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => ({ stdout, stderr }) };
}

/** Runs a command to its end. */
export async function runConduit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const spawned = spawnConduit(args, env);
  const code = await spawned.exited;
  return { code, ...spawned.output() };
}

/** SIGKILLs every process a test left running. */
export function killLeftovers(): void {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

export function writeConfig(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "conduit-cli-")), "config.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** The port of a ready line ("… listening on http://host:port", maybe followed by " (framework: …)"). */
export function portOf(readyLine: string): number {
  const port = /:(\d+)(?: \(framework: |$)/.exec(readyLine.trim())?.[1];
  if (!port) throw new Error(`no port in ${readyLine}`);
  return Number(port);
}

/**
 * One HTTP request on its own connection (no keep-alive), so a cluster's primary hands each
 * request to the next worker in turn.
 */
export function freshRequest(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
        headers: {
          ...headers,
          ...(payload ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}
