// The console's first-load size budget: everything index.html pulls in on the first visit
// (the page, its module scripts and their static imports, its stylesheets), gzipped, must stay
// within BUDGET_BYTES. Run after `vite build`; prints the figure; exits 1 when over.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const BUDGET_BYTES = 250 * 1024;
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/public");

/** Files loaded for the first view: index.html, what it links, and the static imports of those scripts. */
export function firstLoadFiles(directory = root) {
  const seen = new Set(["index.html"]);
  const queue = ["index.html"];
  while (queue.length > 0) {
    const name = queue.shift();
    const text = readFileSync(join(directory, name), "utf8");
    const found = name.endsWith(".html")
      ? [...text.matchAll(/(?:src|href)="\.\/([^"]+\.(?:js|css))"/g)].map((match) => match[1])
      : // Static imports between chunks (`import … from "./x.js"`), never the lazy `import()` ones.
        [...text.matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([^"']+\.js)["']/g)].map((match) =>
          join(dirname(name), match[1]),
        );
    for (const file of found) {
      if (seen.has(file)) continue;
      seen.add(file);
      if (file.endsWith(".js")) queue.push(file);
    }
  }
  return [...seen];
}

export function firstLoadBytes(directory = root) {
  return firstLoadFiles(directory).reduce((sum, file) => sum + gzipSync(readFileSync(join(directory, file)), { level: 9 }).byteLength, 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = firstLoadFiles();
  const bytes = firstLoadBytes();
  const kb = (value) => `${(value / 1024).toFixed(1)} KB`;
  console.log(`console first load: ${kb(bytes)} gzipped over ${files.length} files (budget ${kb(BUDGET_BYTES)})`);
  if (bytes > BUDGET_BYTES) {
    console.error(`over budget by ${kb(bytes - BUDGET_BYTES)}: ${files.join(", ")}`);
    process.exit(1);
  }
}
