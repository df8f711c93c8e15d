#!/usr/bin/env node
// Release gate, run by .ci/run: a release dry run on a scratch copy of the repository.
//   1. copy the working tree (tracked and new files, no build output) and install it offline;
//   2. `changeset version`, then check the plan: a first publish (`0.1.0-0` placeholder) becomes
//      exactly 0.1.0, and no package reaches a new major unless a changeset asks for one;
//   3. build every published package in one nx run (as `pnpm release` does before publishing), then
//      `pnpm pack` them a few at a time (their `prepack`, that same nx build, skipped);
//   4. check each tarball (release-rules.mjs), `publint --strict` and
//      `@arethetypeswrong/cli --profile esm-only` on it;
//   5. per adapter, install the tarballs into a scratch consumer, type-check a strict TypeScript
//      consumer with `nodenext` and `bundler`, start it and call it (release-consumer.mjs).
// Usage: node tools/scripts/release-check.mjs [--keep]     (exit code 0 = pass; prints timings)
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ADAPTERS, checkConsumer } from "./release-consumer.mjs";
import { attwProblems, tarballProblems, versionPlanProblems } from "./release-rules.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const keep = process.argv.includes("--keep");
/** Pinned so the gate means the same thing tomorrow; fetched once per run into the scratch folder. */
const LINT_TOOLS = { publint: "0.3.25", "@arethetypeswrong/cli": "0.18.5" };
const pnpm = process.env.CONDUIT_PNPM ? JSON.parse(process.env.CONDUIT_PNPM) : ["pnpm"];
const run = promisify(execFile);
const runPnpm = (args, cwd) =>
  run(pnpm[0], [...pnpm.slice(1), ...args], { cwd, env: { ...process.env, NX_DAEMON: "false", NX_NO_CLOUD: "true" } });
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const log = (message) => console.log(`release-check: ${message}`);

const timings = [];
async function phase(name, work) {
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  timings.push([name, seconds]);
  log(`${name} (${seconds.toFixed(1)} s)`);
  return result;
}

/** Runs `work` over `items`, at most `limit` at a time (two for CPU-bound work on this two-core machine; the consumers mostly wait on npm). */
async function inPool(items, limit, work) {
  const results = [];
  const queue = [...items.entries()];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results[next[0]] = await work(next[1]);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** Published packages: every folder of packages/ whose manifest is not private. */
function publishedPackages(repository) {
  return readdirSync(join(repository, "packages"))
    .map((folder) => ({ directory: `packages/${folder}`, manifest: readJson(join(repository, "packages", folder, "package.json")) }))
    .filter(({ manifest }) => !manifest.private);
}

/** The bump each pending changeset asks for, per package (frontmatter `"name": major|minor|patch`). */
function requestedBumps(repository) {
  const bumps = {};
  const folder = join(repository, ".changeset");
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".md") && name !== "README.md")) {
    const frontmatter = readFileSync(join(folder, file), "utf8").split("---")[1] ?? "";
    for (const [, name, bump] of frontmatter.matchAll(/^\s*"?([^":\s]+)"?\s*:\s*(major|minor|patch)\s*$/gm)) {
      bumps[name] ??= new Set();
      bumps[name].add(bump);
    }
  }
  return bumps;
}

const scratch = mkdtempSync(join(tmpdir(), "conduit-release-"));
const repository = join(scratch, "repo");
const failures = [];
try {
  await phase("copy the working tree and install offline", async () => {
    const files = execFileSync("git", ["ls-files", "-z", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
    for (const file of files) cpSync(join(root, file), join(repository, file), { errorOnExist: false, verbatimSymlinks: true });
    await runPnpm(["install", "--frozen-lockfile", "--offline", "--reporter=silent"], repository).catch(() =>
      runPnpm(["install", "--frozen-lockfile", "--prefer-offline", "--reporter=silent"], repository),
    );
  });

  const packages = publishedPackages(repository);
  const before = Object.fromEntries(packages.map(({ manifest }) => [manifest.name, manifest.version]));
  const bumps = requestedBumps(repository);
  const after = await phase("changeset version", async () => {
    await run(process.execPath, [join(repository, "node_modules/@changesets/cli/bin.js"), "version"], { cwd: repository });
    return Object.fromEntries(publishedPackages(repository).map(({ manifest }) => [manifest.name, manifest.version]));
  });
  log(
    `plan: ${Object.entries(after)
      .map(([name, version]) => `${name} ${before[name]} → ${version}`)
      .join(", ")}`,
  );
  failures.push(...versionPlanProblems(before, after, bumps));

  const tarballDirectory = join(scratch, "tarballs");
  mkdirSync(tarballDirectory);
  await phase("build every published package (one nx run, as `pnpm release` does)", async () => {
    const projects = packages.map(({ manifest }) => manifest.name).join(",");
    await runPnpm(["exec", "nx", "run-many", "-t", "build", "-p", projects, "--outputStyle=static"], repository);
  });
  // Each package's prepack is its nx build, done above; nx processes side by side on one workspace
  // fight over its database, so the packs skip it and run three at a time.
  const tarballs = await phase("pnpm pack every package, three at a time", async () => {
    const byName = {};
    await inPool(packages, 3, async ({ directory, manifest }) => {
      const { stdout } = await runPnpm(
        ["pack", "--config.ignore-scripts=true", "--pack-destination", tarballDirectory],
        join(repository, directory),
      );
      const tarball = stdout.trim().split("\n").at(-1).trim();
      if (!existsSync(tarball)) throw new Error(`pnpm pack of ${manifest.name} printed no tarball path:\n${stdout}`);
      byName[manifest.name] = tarball;
    });
    return byName;
  });

  await phase("tarball contents and manifests", async () => {
    const { satisfies } = createRequire(realpathSync(join(repository, "node_modules/@changesets/cli/package.json")))("semver");
    for (const { directory, manifest } of packages) {
      const result = tarballProblems({ tarball: tarballs[manifest.name], directory, releasedVersions: after, satisfies });
      failures.push(...result.problems.map((problem) => `${result.name}@${result.version}: ${problem}`));
    }
  });

  const toolDirectory = join(scratch, "lint-tools");
  await phase("publint --strict and attw --profile esm-only on every tarball", async () => {
    mkdirSync(toolDirectory);
    const specs = Object.entries(LINT_TOOLS).map(([name, version]) => `${name}@${version}`);
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "--prefix", toolDirectory, ...specs]);
    const publint = join(toolDirectory, "node_modules/.bin/publint");
    await inPool(Object.values(tarballs), 2, async (tarball) => {
      await run(publint, ["run", "--strict", tarball], { cwd: scratch }).catch((error) =>
        failures.push(`publint --strict ${tarball.split("/").at(-1)}:\n${error.stdout}${error.stderr}`),
      );
    });
    failures.push(...(await attwProblems(toolDirectory, Object.values(tarballs))));
  });

  await phase("scratch consumer per adapter: install, nodenext + bundler type-check, start, call", async () => {
    const typescriptCompiler = join(repository, "node_modules/typescript/bin/tsc");
    const typesNodeRange = readJson(join(root, "package.json")).devDependencies["@types/node"];
    const summaries = await inPool(ADAPTERS, 4, (framework) =>
      checkConsumer({ framework, directory: join(scratch, `consumer-${framework}`), tarballs, typescriptCompiler, typesNodeRange }).catch(
        (error) => {
          failures.push(error.message);
          return `${framework}: FAILED`;
        },
      ),
    );
    for (const summary of summaries) log(summary);
  });
} catch (error) {
  failures.push(`${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
} finally {
  for (const [name, seconds] of timings) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
  console.log(
    `  ${timings
      .reduce((sum, [, seconds]) => sum + seconds, 0)
      .toFixed(1)
      .padStart(6)} s  total`,
  );
  if (keep) log(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`release-check: FAILED\n- ${failures.join("\n- ")}`);
  process.exitCode = 1;
} else {
  log("ok");
}
