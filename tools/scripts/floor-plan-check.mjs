#!/usr/bin/env node
// Checks each package's floor plan: its source folders form layers, and a file may import only
// from its own layer or the ones below (an "up-arrow" is an error); and no package has an import
// cycle between its files. Run by `pnpm lint` (the root `lint:floor-plan` script) and CI.
//
//   node tools/scripts/floor-plan-check.mjs            checks, exit 1 on any up-arrow or cycle
//   node tools/scripts/floor-plan-check.mjs --report   prints the counts per package and exits 0
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Layers of each package, lowest first: a folder (or a file) of `src/` may import from its own
 * layer and the ones before it. Files directly in `src/` that no layer names are the entries
 * (`index.ts`, the package's top-level functions): they may import anything, and nothing below
 * may import them. A subpath's barrel (`src/<folder>/index.ts`, an entry of package.json) may
 * gather exports from any layer too. A package not listed has no layers, only the cycle check.
 */
export const FLOOR_PLANS = {
  "packages/server-core": [
    ["errors", "pricing", "version.ts"],
    ["contracts"],
    ["core"],
    ["config"],
    ["openapi"],
    ["metrics", "routes"],
    ["middleware"],
    ["adapter"],
    ["node", "web"],
    ["testing", "internal"],
  ],
  "packages/proxy": [
    ["config.ts", "config-issues.ts", "prices.ts"],
    ["pool"],
    ["relay"],
    ["wire"],
    ["targets"],
    ["routing", "admission", "cache"],
    ["surfaces"],
    ["testing"],
  ],
  "packages/governance": [
    ["records.ts", "windows.ts", "key-secret.ts", "roles", "delivery"],
    ["config", "usage", "outbox"],
    ["store"],
    ["gate", "mcp", "reconcile"],
    ["audit", "api", "admin"],
  ],
  "packages/telemetry": [["settings", "version.ts"], ["engines"], ["testing"]],
};

/**
 * Up-arrows tolerated for now, as "package: from → to". The pool takes its longest cooldown from
 * the Messages wire's rate-limit header parser; the pool is being reworked, and that rework moves
 * the cap below the pool. Remove the entry with it (the check then reports it if it is back).
 */
export const ALLOWED_UP_ARROWS = new Set(["packages/proxy: pool/account-pool.ts → wire/anthropic-messages/rate-limit-headers.ts"]);

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sourceFiles(directory) {
  const files = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules" && name !== "dist") files.push(...sourceFiles(path));
    } else if (/\.(ts|tsx|mts)$/.test(name) && !/\.(test|d)\.ts$/.test(name) && !name.endsWith(".fixture.ts")) files.push(path);
  }
  return files;
}

/** The file a relative `.js` specifier names (TypeScript's rule: `./x.js` is `./x.ts`). */
function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, join(base, "index.ts")])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const found = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = resolveImport(file, match[1] ?? match[2]);
    if (target) found.push(target);
  }
  return found;
}

/** The first path segment under `src/`: a folder, or the file itself for a file in `src/`. */
function topOf(srcDirectory, file) {
  return relative(srcDirectory, file).split(sep)[0];
}

/** The layer of a top segment; an entry file of `src/` (named in no layer) is above them all. */
function layerOf(layers, top) {
  const index = layers.findIndex((layer) => layer.includes(top));
  if (index !== -1) return index;
  return /\.(ts|tsx|mts)$/.test(top) ? Number.POSITIVE_INFINITY : undefined;
}

/** Every elementary cycle found by a depth-first search, each reported once by its smallest rotation. */
function cyclesOf(graph) {
  const cycles = new Map();
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(" → "), rotated);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return [...cycles.values()];
}

export function checkPackage(packageDirectory) {
  const srcDirectory = join(root, packageDirectory, "src");
  const layers = FLOOR_PLANS[packageDirectory];
  const graph = new Map();
  const upArrows = [];
  const unplaced = new Set();
  for (const file of sourceFiles(srcDirectory)) {
    const targets = importsOf(file).filter((target) => target.startsWith(srcDirectory + sep));
    graph.set(file, targets);
    if (!layers) continue;
    const fromTop = topOf(srcDirectory, file);
    const fromLayer = layerOf(layers, fromTop);
    const isBarrel = relative(srcDirectory, file) === join(fromTop, "index.ts");
    if (fromLayer === Number.POSITIVE_INFINITY || isBarrel) continue;
    if (fromLayer === undefined) {
      unplaced.add(fromTop);
      continue;
    }
    for (const target of targets) {
      const toLayer = layerOf(layers, topOf(srcDirectory, target));
      // Test helpers (`src/testing/`) may start the package through its own entry.
      if (fromTop === "testing" && toLayer === Number.POSITIVE_INFINITY) continue;
      const arrow = `${relative(srcDirectory, file)} → ${relative(srcDirectory, target)}`;
      if ((toLayer === undefined || toLayer > fromLayer) && !ALLOWED_UP_ARROWS.has(`${packageDirectory}: ${arrow}`)) upArrows.push(arrow);
    }
  }
  const cycles = cyclesOf(graph).map((cycle) => cycle.map((file) => relative(srcDirectory, file)).join(" → "));
  return { upArrows, cycles, unplaced: [...unplaced] };
}

function packagesWithSources() {
  const directories = [];
  for (const group of ["packages", "apps", "tools"])
    for (const name of readdirSync(join(root, group))) {
      const directory = `${group}/${name}`;
      if (existsSync(join(root, directory, "src"))) directories.push(directory);
    }
  return directories;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const report = process.argv.includes("--report");
  let failures = 0;
  for (const directory of packagesWithSources()) {
    const { upArrows, cycles, unplaced } = checkPackage(directory);
    if (report) {
      console.log(
        `${directory}: ${upArrows.length} up-arrows, ${cycles.length} cycles${unplaced.length ? `, unplaced ${unplaced.join(", ")}` : ""}`,
      );
      continue;
    }
    for (const arrow of upArrows) console.error(`${directory}: import goes up the floor plan: ${arrow}`);
    for (const cycle of cycles) console.error(`${directory}: import cycle: ${cycle}`);
    for (const folder of unplaced)
      console.error(`${directory}: src/${folder} is in no layer of the floor plan (tools/scripts/floor-plan-check.mjs)`);
    failures += upArrows.length + cycles.length + unplaced.length;
  }
  if (!report) {
    if (failures > 0) process.exit(1);
    console.log("floor plans: no up-arrows, no cycles");
  }
}
