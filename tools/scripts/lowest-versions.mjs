#!/usr/bin/env node
// Lowest allowed versions ("dependencies that compose"): proves the adapters' peer floors.
// Copies the workspace (tracked and new files, no node_modules) to a scratch folder, pins every
// framework package the adapters peer on — and zod, the core's peer — to the lowest version their
// peer range allows, installs with pnpm, checks what got installed, and runs conformance files
// on all four adapters against those versions.
//
// Usage: node tools/scripts/lowest-versions.mjs [--keep] [--all] [--files a.test.ts,b.test.ts]
//   default: the conformance files in DEFAULT_FILES (every adapter, ≈ 2–3 min on 2 cores);
//   --all: the whole conformance suite.  Exit code 0 = pass.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: options } = parseArgs({ options: { keep: { type: "boolean" }, all: { type: "boolean" }, files: { type: "string" } } });

/** Where each floor is declared: the peer range of this package.json. */
const FLOORS = [
  { name: "hono", declaredBy: "packages/adapter-hono" },
  { name: "@hono/node-server", declaredBy: "packages/adapter-hono" },
  { name: "express", declaredBy: "packages/adapter-express" },
  { name: "fastify", declaredBy: "packages/adapter-fastify" },
  { name: "koa", declaredBy: "packages/adapter-koa" },
  { name: "@koa/router", declaredBy: "packages/adapter-koa" },
  { name: "zod", declaredBy: "packages/server-core" },
];
/** The requests every adapter translates: routes, envelopes and errors, middleware, bodies, streams, lifecycle, sockets. */
const DEFAULT_FILES = [
  "src/routes.test.ts",
  "src/envelopes.test.ts",
  "src/error-codes.test.ts",
  "src/middleware.test.ts",
  "src/cors.test.ts",
  "src/uploads.test.ts",
  "src/streaming.test.ts",
  "src/lifecycle.test.ts",
  "src/native-app.test.ts",
  "src/wire.test.ts",
  "src/websocket.test.ts",
  "src/hostile-input.test.ts",
  "src/prototype-keys.test.ts",
  "src/client-address.test.ts",
  "src/auth.test.ts",
];

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
const log = (message) => console.log(`lowest-versions: ${message}`);
const pnpm = process.env.CONDUIT_PNPM ? JSON.parse(process.env.CONDUIT_PNPM) : ["pnpm"];

/** The lowest version a `^x.y.z`, `>=x.y.z <…` or `… || …` range allows (its first part); anything else is refused, not guessed. */
function floorOf(range, name) {
  const match = /^(?:\^|>=|~)?(\d+\.\d+\.\d+)$/.exec(range.split("||")[0].trim().split(/\s+/)[0]);
  if (!match) throw new Error(`cannot take the floor of ${name}@"${range}"`);
  return match[1];
}

/** Every package.json of the workspace copy, as [path, parsed]. */
function workspaceManifests(folder) {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*package.json"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((path) => path.endsWith("package.json") && !path.includes("node_modules") && !path.includes("/fixtures/"))
    .map((path) => [join(folder, path), readJson(join(folder, path))]);
}

const scratch = mkdtempSync(join(tmpdir(), "conduit-lowest-"));
let failed = false;
try {
  const floors = FLOORS.map((item) => {
    const range = readJson(join(root, item.declaredBy, "package.json")).peerDependencies?.[item.name];
    if (!range) throw new Error(`${item.declaredBy} declares no peer range for ${item.name}`);
    return { ...item, range, version: floorOf(range, item.name) };
  });
  log(`floors: ${floors.map((item) => `${item.name}@${item.version} (${item.range})`).join(", ")}`);

  log(`copying the workspace to ${scratch}`);
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    try {
      cpSync(join(root, file), join(scratch, file));
    } catch (error) {
      if (error.code !== "ENOENT") throw error; // deleted in the work tree, not yet in git
    }
  }

  // Pin the floors wherever the workspace installs them itself (dependencies and devDependencies);
  // copies that other packages bring along (e.g. the MCP SDK's express) keep their own ranges.
  for (const [path, manifest] of workspaceManifests(scratch)) {
    let changed = false;
    for (const section of ["dependencies", "devDependencies"]) {
      for (const { name, version } of floors) {
        if (manifest[section]?.[name]) {
          manifest[section][name] = version;
          changed = true;
        }
      }
    }
    if (changed) writeJson(path, manifest);
  }

  log("installing with pnpm (lockfile updated in the copy only)");
  const install = spawnSync(
    pnpm[0],
    [...pnpm.slice(1), "install", "--no-frozen-lockfile", "--prefer-offline", "--config.strict-peer-dependencies=false"],
    {
      cwd: scratch,
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
    },
  );
  if (install.status !== 0) throw new Error(`pnpm install failed:\n${install.stdout}\n${install.stderr}`);

  // What the adapters really resolve: each framework as seen from the adapter that peers on it.
  for (const { name, version, declaredBy } of floors) {
    const installed = readJson(join(scratch, declaredBy, "node_modules", name, "package.json")).version;
    if (installed !== version) throw new Error(`${declaredBy} resolves ${name}@${installed}, expected the floor ${version}`);
  }
  log("installed versions match the floors");

  const selected = options.all ? [] : options.files ? options.files.split(",") : DEFAULT_FILES;
  log(`conformance: ${selected.length === 0 ? "every file" : selected.join(" ")}`);
  const tests = spawnSync(pnpm[0], [...pnpm.slice(1), "--filter", "@conduit-ai/conformance", "exec", "vitest", "run", ...selected], {
    cwd: scratch,
    stdio: "inherit",
    env: { ...process.env, CI: "true" },
  });
  if (tests.status !== 0) throw new Error("conformance failed against the lowest allowed versions");
  log(`ok — conformance passes with ${floors.map((item) => `${item.name}@${item.version}`).join(", ")}`);
} catch (error) {
  failed = true;
  console.error(`lowest-versions: FAILED — ${error.message}`);
} finally {
  if (options.keep) log(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
  process.exitCode = failed ? 1 : 0;
}
