import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

// Playwright's types are not installed in the workspace (the tool lives in a scratch folder).
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Loose = any;

/** What scripts/browser-check.mjs installed into its scratch folder (never a workspace dependency). */
export function browserTools() {
  const folder = process.env.CONSOLE_BROWSER_TOOLS;
  if (!folder) throw new Error("The browser tests run through scripts/browser-check.mjs (pnpm --filter @conduit-ai/console test:browser)");
  const require = createRequire(join(folder, "package.json"));
  const { chromium } = require("playwright-core") as { chromium: Loose };
  const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return { chromium, axeSource, executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" };
}
