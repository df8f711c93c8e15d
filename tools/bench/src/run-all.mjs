#!/usr/bin/env node
// `pnpm bench`: runs every `bench:<scenario>` script of this package.json, in the order they
// are declared, one after the other (never in parallel: each measures side by side itself).
// A scenario is one script line; `--only adapters,streams` picks some. A scenario's own flags
// go to it alone: `pnpm --filter @conduit-ai/bench bench:<scenario> -- …`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const scenarios = Object.keys(manifest.scripts)
  .filter((name) => name.startsWith("bench:"))
  .map((name) => name.slice("bench:".length));
let values;
try {
  ({ values } = parseArgs({ options: { only: { type: "string" } }, args: process.argv.slice(2).filter((a) => a !== "--") }));
} catch (error) {
  console.error(
    `${error.message}\nusage: pnpm bench [-- --only scenario,…]; a scenario's flags: pnpm --filter @conduit-ai/bench bench:<scenario> -- …`,
  );
  process.exit(2);
}
const chosen = values.only ? values.only.split(",").map((name) => name.trim()) : scenarios;
const unknown = chosen.filter((name) => !scenarios.includes(name));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(", ")} (known: ${scenarios.join(", ")})`);
  process.exit(2);
}
let failed = 0;
for (const scenario of chosen) {
  console.log(`\n##### bench:${scenario} #####`);
  const result = spawnSync("npm", ["run", "--silent", `bench:${scenario}`], { stdio: "inherit", cwd: new URL("..", import.meta.url) });
  if (result.status !== 0) {
    failed++;
    console.error(`bench:${scenario} exited with ${result.status ?? result.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
