/**
 * CPU profile of one `stack` server under load: `node --import tsx src/profile-stack.ts <framework> [conduit|ecosystem|same-work] [memory|redis] [seconds]`
 * (built packages; `pnpm bench -- --only stack` builds them). Writes a `.cpuprofile` (Chrome
 * DevTools) and prints the hottest functions by self time, as profile.ts does for `/api/health`.
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { printCpuProfileSummary } from "./cpu-profile-summary.js";

const [framework = "fastify", side = "conduit", store = "memory", seconds = "8"] = process.argv
  .slice(2)
  .filter((argument) => argument !== "--");
const directory = mkdtempSync(join(tmpdir(), "conduit-stack-profile-"));
const child = fork(new URL("./stack-server.ts", import.meta.url), [framework, side, store, `bench:profile:${randomUUID()}:`], {
  execArgv: ["--import", "tsx", "--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${directory}`],
  stdio: ["ignore", "ignore", "inherit", "ipc"],
});
const port = await new Promise<number>((resolve) => child.once("message", (message: { port: number }) => resolve(message.port)));
const headers = { "x-api-key": "bench-api-key-0123456789", origin: "https://app.example" };
const result = await autocannon({ url: `http://127.0.0.1:${port}/api/items`, connections: 50, duration: Number(seconds), headers });
console.log(`${framework} ${side} (${store}): ${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx`);
await new Promise((resolve) => {
  child.once("exit", resolve);
  child.disconnect();
});

printCpuProfileSummary(directory, Number(process.env.TOP ?? 40));
