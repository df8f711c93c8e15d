#!/usr/bin/env node
// Newcomer path: the README's two commands from a fresh clone on a machine with only
// Node and npm. A `pnpm` shim that exits 127 (as a shell does for a missing command) is put first
// on PATH, and the npm/pnpm variables of any parent run are dropped, so every bare `pnpm` fails.
//   1. `git clone` of this repository (its committed HEAD) into a temporary folder;
//   2. `npm run demo -- --port 0 --host 127.0.0.1` must install the workspace (pnpm through npx),
//      print `Conduit listening on http://…` and answer GET /api/health;
//   3. `npm test -- --projects=<project>` must resolve pnpm the same way, run that project's tests
//      and then the consumer install check (which packs with the resolved pnpm) — the whole suite
//      is what `.ci/run` runs anyway;
//   4. the shim's log must show only the quick start's `pnpm --version` probes.
// Usage: node tools/scripts/newcomer-check.mjs [--projects=@conduit-ai/streaming] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const keep = process.argv.includes("--keep");
const projects =
  process.argv.find((argument) => argument.startsWith("--projects="))?.slice("--projects=".length) ?? "@conduit-ai/streaming";
const READY = /Conduit listening on (http:\/\/\S+)/;
const log = (message) => console.log(`newcomer-check: ${message}`);

const scratch = mkdtempSync(join(tmpdir(), "conduit-newcomer-"));
const shimDirectory = join(scratch, "no-pnpm");
const shimLog = join(scratch, "pnpm-shim.log");
const clone = join(scratch, "conduit");

/** Only Node and npm (and the system tools git and npm need): the shim shadows any installed pnpm. */
function newcomerEnvironment() {
  const environment = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|PNPM_|COREPACK_|NX_)/i.test(key)));
  environment.PATH = [shimDirectory, dirname(process.execPath), ...(process.env.PATH ?? "").split(delimiter)].join(delimiter);
  environment.NX_DAEMON = "false";
  return environment;
}

/** Runs an npm command in the clone, output streamed with a prefix; resolves with its exit code. */
function runNpm(args, { onLine } = {}) {
  const child = spawn("npm", args, { cwd: clone, env: newcomerEnvironment(), stdio: ["ignore", "pipe", "pipe"], detached: true });
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        console.log(`  | ${line}`);
        onLine?.(line, child);
      }
    });
  }
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return { child, exited };
}

async function checkDemo() {
  let resolveReady;
  const ready = new Promise((resolve) => {
    resolveReady = resolve;
  });
  const { child, exited } = runNpm(["run", "demo", "--", "--port", "0", "--host", "127.0.0.1"], {
    onLine: (line) => {
      const match = READY.exec(line);
      if (match) resolveReady(match[1]);
    },
  });
  const deadline = setTimeout(() => resolveReady(undefined), 600_000);
  const origin = await Promise.race([ready, exited.then(() => undefined)]);
  clearTimeout(deadline);
  try {
    if (!origin) throw new Error("`npm run demo` never printed its ready line");
    const response = await fetch(`${origin}/api/health`);
    const body = await response.json();
    if (response.status !== 200 || body?.data?.status !== "ok")
      throw new Error(`GET /api/health answered ${response.status} ${JSON.stringify(body)}`);
    log(`npm run demo: ready at ${origin}, GET /api/health 200 (version ${body.data.version})`);
  } finally {
    // npm, the quick start and the server form one process group: stop them all, then wait.
    if (child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    await exited;
  }
}

async function checkTest() {
  const { exited } = runNpm(["test", "--", `--projects=${projects}`]);
  const code = await exited;
  if (code !== 0) throw new Error(`\`npm test -- --projects=${projects}\` exited ${code}`);
  log(`npm test -- --projects=${projects}: passed (that project's tests, then the consumer install check)`);
}

let failed = false;
try {
  mkdirSync(shimDirectory);
  writeFileSync(join(shimDirectory, "pnpm"), `#!/bin/sh\necho "pnpm $*" >> "${shimLog}"\necho "pnpm: command not found" >&2\nexit 127\n`);
  chmodSync(join(shimDirectory, "pnpm"), 0o755);
  writeFileSync(shimLog, "");
  execFileSync("git", ["clone", "--quiet", root, clone], { stdio: "inherit" });
  log(
    `cloned ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: clone, encoding: "utf8" }).trim()} into ${clone}; pnpm on PATH is a shim that exits 127`,
  );

  await checkDemo();
  await checkTest();

  const calls = readFileSync(shimLog, "utf8").split("\n").filter(Boolean);
  const unexpected = calls.filter((call) => call !== "pnpm --version");
  if (unexpected.length > 0) throw new Error(`a bare pnpm was run: ${unexpected.join("; ")}`);
  log(`ok — bare pnpm was only probed (${calls.length}× pnpm --version), everything else ran through npx`);
} catch (error) {
  console.error(`newcomer-check: FAILED — ${error.message}`);
  failed = true;
} finally {
  if (keep) log(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
