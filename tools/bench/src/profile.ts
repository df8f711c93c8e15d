/**
 * Profiles one Conduit server under load: `node --import tsx src/profile.ts <framework> [seconds] [conduit|core|bare] [--dist]`
 * (`--dist` loads the built packages, as users run them; `pnpm build` first).
 * Writes a `.cpuprofile` (open in Chrome DevTools) and prints the hottest functions by self time.
 */
import { fork } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";

const dist = process.argv.includes("--dist");
const [framework = "fastify", seconds = "5", mode = "conduit"] = process.argv.slice(2).filter((argument) => argument !== "--dist");
const directory = mkdtempSync(join(tmpdir(), "conduit-profile-"));
const child = fork(new URL("./bench-server.ts", import.meta.url), [framework, mode], {
  execArgv: [
    ...(dist ? [] : ["--conditions=@conduit-ai/source"]),
    "--import",
    "tsx",
    "--cpu-prof",
    "--cpu-prof-interval=100",
    `--cpu-prof-dir=${directory}`,
  ],
});
const port = await new Promise<number>((resolve) => child.once("message", (message: { port: number }) => resolve(message.port)));
const result = await autocannon({ url: `http://127.0.0.1:${port}/api/health`, connections: 50, duration: Number(seconds) });
console.log(`${framework} (${mode}): ${Math.round(result.requests.average)} req/s`);
await new Promise((resolve) => {
  child.once("exit", resolve);
  child.disconnect();
});

printCpuProfileSummary(directory, 30);
