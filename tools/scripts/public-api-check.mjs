#!/usr/bin/env node
// Every published entry of every package, counted: what it exports at runtime against its budget,
// and no `export *` in an entry file (a folder's wildcard leaks its internals). Run by CI's lint step:
//   node --import tsx tools/scripts/public-api-check.mjs [--report]
//
// Budgets: server-core's main entry ≤ 80 and each of its subpaths ≤ 60 (`./internal` is for Conduit's
// own packages, with no semver promise, and has no budget); every other entry ≤ 30, unless the package's
// README has a "## Public API" section that says why and names its budget as `<!-- public-api budget: N -->`.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("../..", import.meta.url).pathname;
const report = process.argv.includes("--report");
const DEFAULT_BUDGET = 30;
const SERVER_CORE_BUDGETS = { ".": 80, "./internal": Number.POSITIVE_INFINITY };
const SERVER_CORE_SUBPATH_BUDGET = 60;

/** The budget a README claims, with its reason, or undefined. */
function readmeBudget(dir) {
  const readme = join(dir, "README.md");
  if (!existsSync(readme)) return undefined;
  const text = readFileSync(readme, "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Public API"));
  const marker = section?.match(/<!-- public-api budget: (\d+) -->/);
  if (!marker) return undefined;
  const reason = section
    .replace(/^Public API\s*/, "")
    .replace(marker[0], "")
    .trim();
  return reason.length >= 40 ? Number(marker[1]) : undefined;
}

function budgetOf(name, subpath, dir) {
  if (name === "@conduit-ai/server-core") return SERVER_CORE_BUDGETS[subpath] ?? SERVER_CORE_SUBPATH_BUDGET;
  return readmeBudget(dir) ?? DEFAULT_BUDGET;
}

function sourceOf(target) {
  if (typeof target === "string") return target;
  return target?.["@conduit-ai/source"] ?? target?.import ?? target?.default;
}

const problems = [];
const rows = [];
for (const folder of readdirSync(join(root, "packages")).sort()) {
  const dir = join(root, "packages", folder);
  const manifestPath = join(dir, "package.json");
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  if (manifest.private) continue;
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const source = sourceOf(target);
    if (!source?.endsWith(".ts")) continue;
    const file = join(dir, source);
    const text = readFileSync(file, "utf8");
    if (/^\s*export\s*\*\s*from/m.test(text)) problems.push(`${relative(root, file)}: \`export *\` in an entry; name what it exports`);
    const names = Object.keys(await import(pathToFileURL(file).href));
    const budget = budgetOf(manifest.name, subpath, dir);
    rows.push({ entry: `${manifest.name}${subpath === "." ? "" : subpath.slice(1)}`, exports: names.length, budget });
    if (names.length > budget) problems.push(`${manifest.name} ${subpath}: ${names.length} runtime exports, budget ${budget}`);
  }
}

if (report || problems.length > 0) {
  for (const row of rows) console.log(`${row.entry.padEnd(40)} ${String(row.exports).padStart(4)}  budget ${row.budget}`);
  console.log(`total ${rows.reduce((sum, row) => sum + row.exports, 0)} runtime exports over ${rows.length} entries`);
}
for (const problem of problems) console.error(`public-api: ${problem}`);
if (problems.length > 0) process.exit(1);
console.log(`public-api: ${rows.length} entries within their budgets, no \`export *\``);
