#!/usr/bin/env node
// The README's commands (`npm run demo`, `npm test`, `npm run bench`) on a machine with only
// Node and npm: find pnpm (or run the pinned one through npx), install the workspace when
// needed, then run the target. Signals are forwarded so the demo drains on SIGTERM/SIGINT.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pnpmVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1];
const [target, ...args] = process.argv.slice(2);

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8", shell: process.platform === "win32" });
  if (probe.status === 0) return ["pnpm"];
  return ["npx", "--yes", `pnpm@${pnpmVersion}`];
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function installIfNeeded(pnpm) {
  const marker = join(root, "node_modules", ".modules.yaml");
  const lock = join(root, "pnpm-lock.yaml");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.error("Installing workspace dependencies with pnpm…");
  run(pnpm[0], [...pnpm.slice(1), "install", "--frozen-lockfile"]);
}

/** Runs a child with each line of its output prefixed (as nx prefixes its tasks'); resolves with its exit code. */
function runPrefixed(prefix, command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop();
      for (const line of lines) out.write(`${prefix}${line}\n`);
    });
    stream.on("end", () => partial && out.write(`${prefix}${partial}\n`));
  }
  return new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** Runs a long-lived child, forwarding termination signals and its exit code. */
function runForwarding(command, commandArgs) {
  const child = spawn(command, commandArgs, { cwd: root, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const pnpm = pnpmCommand();
installIfNeeded(pnpm);
const nodeSource = ["--conditions=@conduit-ai/source", "--import", "tsx"];
// `test --without-topology`: CI runs the topology and fault cases as a step of its own.
const withoutTopology = args.includes("--without-topology");
const passThrough = args.filter((arg) => arg !== "--" && arg !== "--without-topology");

switch (target) {
  case "demo":
    runForwarding(process.execPath, [...nodeSource, "apps/demo/src/main.ts", ...passThrough]);
    break;
  case "conduit":
    runForwarding(process.execPath, [...nodeSource, "packages/cli/src/bin.ts", ...passThrough]);
    break;
  case "test":
    // The operator console's pages are a Vite build (tests serve them); everything else is read from src.
    if (!existsSync(join(root, "packages/console/dist/public/index.html")))
      run(pnpm[0], [...pnpm.slice(1), "--filter", "@conduit-ai/console", "exec", "vite", "build"]);
    if (passThrough.some((arg) => /^(-p|--projects|--exclude)(=|$)/.test(arg)))
      run(pnpm[0], [...pnpm.slice(1), "exec", "nx", "run-many", "-t", "test", "--outputStyle=stream", "--skip-nx-cache", ...passThrough]);
    else {
      // nx starts the packages others depend on first, so the two longest suites, conformance and
      // the CLI (which little or nothing depends on), would start last: they run beside nx's run of
      // all the others instead (conformance with three vitest workers, see its vitest.config.ts).
      const beside = ["@conduit-ai/conformance", "@conduit-ai/cli"];
      const codes = await Promise.all([
        ...beside.map((project) => runPrefixed(`${project}: `, pnpm[0], [...pnpm.slice(1), "--filter", project, "test"])),
        new Promise((resolve) =>
          spawn(
            pnpm[0],
            [
              ...pnpm.slice(1),
              "exec",
              "nx",
              "run-many",
              "-t",
              "test",
              `--exclude=${beside.join(",")}`,
              "--outputStyle=stream",
              "--skip-nx-cache",
              ...passThrough,
            ],
            { cwd: root, stdio: "inherit" },
          ).on("close", (code) => resolve(code ?? 1)),
        ),
      ]);
      if (codes.some((code) => code !== 0)) {
        console.error(
          `tests failed (exit codes: ${[...beside, "nx run-many (the others)"].map((name, index) => `${name} ${codes[index]}`).join(", ")})`,
        );
        process.exit(1);
      }
    }
    // Then the conformance topology and fault cases (processes, store deadlines) with the machine to themselves.
    if (!withoutTopology)
      run(pnpm[0], [
        ...pnpm.slice(1),
        "exec",
        "nx",
        "run-many",
        "-t",
        "test:topology",
        "--outputStyle=stream",
        "--skip-nx-cache",
        ...passThrough,
      ]);
    // A consumer's view: packed tarballs installed with npm into an empty project.
    // The check packs with the same pnpm this script resolved (it may be the npx-fetched one).
    // Then the release dry run's rules and the version stamp (tools/scripts/release-rules.test.mjs).
    run(process.execPath, ["--test", "tools/scripts/consumer-install.test.mjs", "tools/scripts/release-rules.test.mjs"], {
      env: { ...process.env, CONDUIT_PNPM: JSON.stringify(pnpm) },
    });
    break;
  case "bench":
    // Every `bench:<scenario>` of tools/bench/package.json in turn (`--only a,b` picks some).
    runForwarding(pnpm[0], [...pnpm.slice(1), "--filter", "@conduit-ai/bench", "bench", ...passThrough]);
    break;
  default:
    console.error("usage: quickstart.mjs demo|conduit|test|bench [args]");
    process.exit(2);
}
