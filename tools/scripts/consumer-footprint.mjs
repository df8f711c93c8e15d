#!/usr/bin/env node
// Consumer footprint ("light core"): what `@conduit-ai/server-core` + `@conduit-ai/adapter-hono`
// cost a consumer. Builds and packs both (`pnpm pack` rewrites `workspace:^`), installs them with npm
// into an empty project next to what a Hono user has anyway (hono, zod, @hono/node-server), and prints:
//
//   (a) the bytes they add to node_modules beyond hono + zod + @hono/node-server (target ≤ 2 MB);
//   (b) the time `import()` of both takes, median of fresh `node` processes (target ≤ 100 ms), wall
//       and CPU, next to importing hono + zod + @hono/node-server alone, which the total includes;
//   (c) Conduit's own share: the median, over pairs of runs taken back to back, of the difference;
//   (d) the total scaled to the reference machine, which --check gates.
//
// The 100 ms goal was set on a quiet machine of this kind where the three alone import in 72 ms
// (REFERENCE_BASELINE_MS). Machines of one kind differ by 20–50 % from run to run (the same
// baseline measured 72, 81, 88 and 106 ms), and a slower machine slows every import alike, which
// moves the total with no change to Conduit. So --check gates the total scaled to the reference:
// the median over pairs of total ÷ baseline × 72 ms ≤ 100 ms. The absolute total is printed beside it.
//
// Usage: node tools/scripts/consumer-footprint.mjs [--runs 9] [--keep] [--check]
//   --check  exit 1 when a target is missed (the figures are printed either way); a scaled total
//            over the target is measured again, up to three rounds, before it counts.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: options } = parseArgs({
  options: { runs: { type: "string", default: "9" }, keep: { type: "boolean" }, check: { type: "boolean" } },
});
const TARGET_BYTES = 2 * 1024 * 1024;
const TARGET_MS = 100;
/** hono + zod + @hono/node-server alone, median import on a quiet machine of this kind (2026-11-23). */
const REFERENCE_BASELINE_MS = 72;
const PACKAGES = [
  { name: "@conduit-ai/server-core", directory: "packages/server-core" },
  { name: "@conduit-ai/adapter-hono", directory: "packages/adapter-hono" },
];
/** What a Hono consumer installs anyway, at the versions this workspace resolves. */
const BASELINE = ["hono", "zod", "@hono/node-server"];

const pnpm = process.env.CONDUIT_PNPM ? JSON.parse(process.env.CONDUIT_PNPM) : ["pnpm"];
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
const runPnpm = (args, cwd) => run(pnpm[0], [...pnpm.slice(1), ...args], cwd);
const npmInstall = (specs, cwd) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs], cwd);
const log = (message) => console.error(`consumer-footprint: ${message}`);

/** Bytes of every file under a folder (symlinks counted as links, not followed). */
function folderBytes(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((total, entry) => total + folderBytes(join(path, entry)), 0);
}

/** Installed top-level packages of a project (scoped ones as `@scope/name`). */
function installedPackages(project) {
  const modules = join(project, "node_modules");
  return readdirSync(modules)
    .filter((entry) => !entry.startsWith("."))
    .flatMap((entry) => (entry.startsWith("@") ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry]));
}

/** The version the workspace resolves for a package, as seen from `packages/adapter-hono`. */
const installedVersion = (name) => {
  const folders = ["packages/adapter-hono/node_modules", "packages/server-core/node_modules", "node_modules"];
  for (const folder of folders) {
    try {
      return JSON.parse(readFileSync(join(root, folder, name, "package.json"), "utf8")).version;
    } catch {}
  }
  throw new Error(`${name} is not installed in the workspace`);
};
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

/** A fresh process importing `modules`; prints the wall and CPU milliseconds the imports took. */
const importScript = (modules) => `const cpu = process.cpuUsage();
const start = performance.now();
${modules.map((name) => `await import(${JSON.stringify(name)});`).join("\n")}
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000 }));`;
const importOnce = (project, modules) =>
  JSON.parse(run(process.execPath, ["--input-type=module", "-e", importScript(modules)], project).trim());

/**
 * `runs` pairs of fresh processes, each pair importing the baseline and then both packages back to
 * back, so a machine that slows down slows both sides of a pair alike. Medians of each side, of the
 * per-pair differences (Conduit's share) and of the per-pair totals scaled to the reference baseline.
 */
function importTimes(project, runs) {
  const pairs = [];
  for (let index = 0; index < runs; index++) {
    const baseline = importOnce(project, BASELINE);
    const both = importOnce(
      project,
      PACKAGES.map((item) => item.name),
    );
    pairs.push({ baseline, both });
  }
  const round = (value) => Math.round(value * 10) / 10;
  const medianOf = (pick) => round(median(pairs.map(pick)));
  return {
    both: { wall: medianOf((pair) => pair.both.wall), cpu: medianOf((pair) => pair.both.cpu) },
    baseline: { wall: medianOf((pair) => pair.baseline.wall), cpu: medianOf((pair) => pair.baseline.cpu) },
    share: { wall: medianOf((pair) => pair.both.wall - pair.baseline.wall), cpu: medianOf((pair) => pair.both.cpu - pair.baseline.cpu) },
    scaled: { wall: medianOf((pair) => (pair.both.wall / pair.baseline.wall) * REFERENCE_BASELINE_MS) },
  };
}

const workspace = mkdtempSync(join(tmpdir(), "conduit-footprint-"));
try {
  log("building server-core and adapter-hono");
  runPnpm([...PACKAGES.flatMap((item) => ["--filter", item.name]), "run", "build"], root);
  const tarballs = PACKAGES.map((item) => {
    const before = new Set(readdirSync(workspace));
    runPnpm(["pack", "--pack-destination", workspace], join(root, item.directory));
    const created = readdirSync(workspace).find((file) => file.endsWith(".tgz") && !before.has(file));
    if (!created) throw new Error(`pnpm pack produced no tarball for ${item.name}`);
    return join(workspace, created);
  });

  const project = join(workspace, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "conduit-footprint", private: true, type: "module" }));
  const baselineSpecs = BASELINE.map((name) => `${name}@${installedVersion(name)}`);
  log(`installing ${baselineSpecs.join(" ")}`);
  npmInstall(baselineSpecs, project);
  const baselinePackages = new Set(installedPackages(project));
  const baselineBytes = folderBytes(join(project, "node_modules"));

  log("installing the two tarballs");
  npmInstall([...tarballs, ...baselineSpecs], project);
  const added = installedPackages(project).filter((name) => !baselinePackages.has(name) && !name.startsWith("@conduit-ai/"));
  const totalBytes = folderBytes(join(project, "node_modules"));
  const addedBytes = totalBytes - baselineBytes;
  const conduitBytes = PACKAGES.map((item) => [item.name, folderBytes(join(project, "node_modules", item.name))]);
  const addedByPackage = added.map((name) => [name, folderBytes(join(project, "node_modules", name))]).sort((a, b) => b[1] - a[1]);

  const runs = Number(options.runs);
  importOnce(
    project,
    PACKAGES.map((item) => item.name),
  ); // warms the file cache
  let times = importTimes(project, runs);
  // Times are noise-prone on a shared machine: with --check, a miss is measured again (up to three
  // rounds in all) before it counts; a real regression misses every round.
  for (let round = 2; options.check && times.scaled.wall > TARGET_MS && round <= 3; round++) {
    log(
      `the import scaled to the reference machine took ${times.scaled.wall} ms, over ${TARGET_MS} ms: measuring again (round ${round} of 3)`,
    );
    times = importTimes(project, runs);
  }

  const report = {
    baseline: { packages: baselineSpecs, bytes: baselineBytes },
    added: {
      bytes: addedBytes,
      conduit: Object.fromEntries(conduitBytes),
      dependencies: Object.fromEntries(addedByPackage),
    },
    importMs: {
      runs,
      serverCoreAndAdapterHono: times.both,
      baselineAlone: times.baseline,
      conduitShare: times.share,
      scaledToReference: times.scaled,
      referenceBaseline: REFERENCE_BASELINE_MS,
    },
  };
  console.log(JSON.stringify(report, null, 2));
  const sizeOk = addedBytes <= TARGET_BYTES;
  const timeOk = times.scaled.wall <= TARGET_MS;
  const mark = (ok) => (ok ? "ok" : "MISSED");
  console.log(
    `added to node_modules: ${megabytes(addedBytes)} (target ≤ ${megabytes(TARGET_BYTES)}) ${mark(sizeOk)}; ` +
      `import of server-core + adapter-hono: ${times.both.wall} ms wall / ${times.both.cpu} ms CPU, median of ${runs}, ` +
      `with hono + zod + @hono/node-server alone at ${times.baseline.wall} ms wall (Conduit's share ${times.share.wall} ms wall / ${times.share.cpu} ms CPU); ` +
      `scaled to the reference machine (baseline ${REFERENCE_BASELINE_MS} ms): ${times.scaled.wall} ms (target ≤ ${TARGET_MS} ms) ${mark(timeOk)}`,
  );
  if (options.check && !(sizeOk && timeOk)) process.exitCode = 1;
} catch (error) {
  console.error(`consumer-footprint: FAILED — ${error.message}`);
  if (error.stderr) console.error(String(error.stderr));
  process.exitCode = 1;
} finally {
  if (options.keep) log(`kept ${workspace}`);
  else rmSync(workspace, { recursive: true, force: true });
}
