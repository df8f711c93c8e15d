/**
 * `conduit serve` as a bench child: the built command (or src through tsx with `--source`), on
 * the default stack with the limiter's ceiling raised (the figure is throughput, not refusals) and
 * `/api/health` counted (by default the limiter skips it), so every request makes a Redis call.
 * Shared by the benches that compare deployments of the same server (workers, Redis topologies).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export interface ServeProcess {
  process: ChildProcess;
  /** `GET /api/health` of this server. */
  url: string;
}

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** Builds the cli unless the bench runs from source. */
export function buildCliUnlessSource(source: boolean): void {
  if (source) return;
  execFileSync("pnpm", ["exec", "nx", "run", "@conduit-ai/cli:build", "--output-style=static"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** A config file with the limiter's ceiling raised and health counted. */
export function benchServeConfig(name: string): string {
  const config = join(mkdtempSync(join(tmpdir(), `bench-${name}-`)), "config.json");
  writeFileSync(config, JSON.stringify({ server: { rateLimit: { maxRequests: 1_000_000_000, windowMs: 60_000, skipPaths: [] } } }));
  return config;
}

/** Starts `conduit serve <args> --config <config>` on a free loopback port; resolves once it listens. */
export function startServe(options: {
  source: boolean;
  config: string;
  args?: string[];
  env: Record<string, string>;
}): Promise<ServeProcess> {
  const entry = options.source
    ? ["--conditions=@conduit-ai/source", "--import", "tsx", join(root, "packages/cli/src/bin.ts")]
    : [join(root, "packages/cli/bin/conduit.mjs")];
  const args = [...entry, "serve", ...(options.args ?? []), "--port", "0", "--host", "127.0.0.1", "--config", options.config];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, REDIS_URL: "", REDIS_CLUSTER_NODES: "", REDIS_SENTINELS: "", PORT: "", ...options.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const port = /Conduit listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port) resolve({ process: child, url: `http://127.0.0.1:${port}/api/health` });
    });
    child.once("exit", (code) => reject(new Error(`conduit serve ${(options.args ?? []).join(" ")} exited with ${code}`)));
  });
}

export const stopServe = (server: ServeProcess) =>
  new Promise<void>((resolve) => {
    if (server.process.exitCode !== null) return resolve();
    server.process.once("exit", () => resolve());
    server.process.kill("SIGTERM");
  });

/** Requests per second over `duration` seconds; any non-2xx or error fails the bench. */
export async function measureServe(server: ServeProcess, connections: number, duration: number): Promise<number> {
  const result = await autocannon({ url: server.url, connections, duration, pipelining: 1 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors on ${server.url}`);
  return result.requests.average;
}
