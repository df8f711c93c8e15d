/**
 * Profiles one Conduit server under load: `node --import tsx src/profile.ts <framework> [seconds] [conduit|core|bare] [--dist]`
 * (`--dist` loads the built packages, as users run them; `pnpm build` first).
 * Writes a `.cpuprofile` (open in Chrome DevTools) and prints the hottest functions by self time.
 */
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

const dist = process.argv.includes("--dist");
const [framework = "fastify", seconds = "5", mode = "conduit"] = process.argv.slice(2).filter((argument) => argument !== "--dist");
const directory = mkdtempSync(join(tmpdir(), "conduit-profile-"));
const child = fork(new URL("./bench-server.ts", import.meta.url), [framework, mode], {
  execArgv: [...(dist ? [] : ["--conditions=@conduit-ai/source"]), "--import", "tsx", "--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${directory}`],
});
const port = await new Promise<number>((resolve) => child.once("message", (message: { port: number }) => resolve(message.port)));
const result = await autocannon({ url: `http://127.0.0.1:${port}/api/health`, connections: 50, duration: Number(seconds) });
console.log(`${framework} (${mode}): ${Math.round(result.requests.average)} req/s`);
await new Promise((resolve) => {
  child.once("exit", resolve);
  child.disconnect();
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
// One profile per thread (tsx's loader runs in a worker): the main thread's is the largest.
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
for (const [key, hits] of [...selfHits].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
