#!/usr/bin/env node
// Build step of packages with a `src/version.ts`: that module reads `../package.json` (so tests
// and the demo, which run from `src`, report the manifest's version), and this step replaces
// the compiled `dist/version.js` with a literal taken from package.json at build time. The
// published file then needs no JSON import (Node < 20.10, edge runtimes) and the version is never
// kept by hand. Run from the package directory: `tsc -p tsconfig.build.json && node ../../tools/scripts/stamp-version.mjs`.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const packageDirectory = process.cwd();
const { name, version } = JSON.parse(readFileSync(join(packageDirectory, "package.json"), "utf8"));
const compiled = join(packageDirectory, "dist", "version.js");
const source = readFileSync(compiled, "utf8");
// Refuse to stamp a module that no longer reads package.json: the literal would hide the change.
if (!/from "\.\.\/package\.json" with \{ type: "json" \}/.test(source)) {
  console.error(`stamp-version: ${compiled} does not import ../package.json; nothing stamped`);
  process.exit(1);
}
writeFileSync(
  compiled,
  `/** ${name}'s version, written from package.json at build time. */\nexport const VERSION = ${JSON.stringify(version)};\n`,
);
rmSync(`${compiled}.map`, { force: true });
