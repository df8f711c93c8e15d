#!/usr/bin/env node
// The console's browser tests: Debian's Chromium driven by playwright-core, with
// axe-core for accessibility. Neither tool is a workspace dependency: they are installed here
// into a scratch folder (kept between runs, keyed by version), as web-runtimes-check.mjs does for
// Bun and Deno; Chromium comes from apt (`apt-get install -y chromium`) when missing and root.
// Builds the console when its assets are missing or older than app/, then runs `vitest --config vitest.browser.config.ts`.
//
// Usage: node packages/console/scripts/browser-check.mjs   (screenshots: CONSOLE_SCREENSHOTS, default packages/console/browser-screenshots)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const TOOLS = { "playwright-core": "1.57.0", "axe-core": "4.11.4" };
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const log = (message) => console.log(`console browser tests: ${message}`);
const run = (command, args, options = {}) => execFileSync(command, args, { stdio: "inherit", ...options });

if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0) {
    console.error(`${chromium} is missing: install Debian's chromium (sudo apt-get install -y chromium) or set CHROMIUM_PATH`);
    process.exit(1);
  }
  log("installing chromium with apt-get");
  run("apt-get", ["update"]);
  run("apt-get", ["install", "-y", "--no-install-recommends", "chromium"]);
}

const scratch = join(tmpdir(), `conduit-console-browser-tools-${Object.values(TOOLS).join("-")}`);
if (!existsSync(join(scratch, "node_modules", "playwright-core")) || !existsSync(join(scratch, "node_modules", "axe-core"))) {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ private: true, name: "conduit-console-browser-tools" }));
  const specs = Object.entries(TOOLS).map(([name, version]) => `${name}@${version}`);
  log(`installing ${specs.join(" ")} into ${scratch}`);
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], { cwd: scratch });
}

/** The newest modification time under a folder (the app's sources and config). */
const newest = (path) =>
  statSync(path).isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name)))) : statSync(path).mtimeMs;
const builtIndex = join(packageRoot, "dist", "public", "index.html");
// Stale pages would test yesterday's console: rebuild when the app changed since the last build.
if (!existsSync(builtIndex) || newest(join(packageRoot, "app")) > statSync(builtIndex).mtimeMs) {
  log("building the console");
  run("pnpm", ["exec", "vite", "build"], { cwd: packageRoot });
}

try {
  run("pnpm", ["exec", "vitest", "run", "--config", "vitest.browser.config.ts"], {
    cwd: packageRoot,
    env: { ...process.env, CONSOLE_BROWSER_TOOLS: scratch, CHROMIUM_PATH: chromium },
  });
} catch (error) {
  process.exit(error.status ?? 1);
}
