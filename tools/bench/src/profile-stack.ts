/**
 * CPU profile of one `stack` server under load: `node --import tsx src/profile-stack.ts <framework> [conduit|ecosystem] [memory|redis] [seconds]`
 * (built packages; `pnpm bench -- --only stack` builds them). Writes a `.cpuprofile` (Chrome
 * DevTools) and prints the hottest functions by self time, as profile.ts does for `/api/health`.
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const [framework = "fastify", side = "conduit", store = "memory", seconds = "8"] = process.argv.slice(2).filter((argument) => argument !== "--");
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

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
const file = readdirSync(directory)
  .map((name) => join(directory, name))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0] as string;
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[] };
const selfHits = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  total += hits;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^.*\/packages\//, "")}:${lineNumber + 1}`;
  selfHits.set(key, (selfHits.get(key) ?? 0) + hits);
}
console.log(`profile: ${file}`);
for (const [key, hits] of [...selfHits].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
