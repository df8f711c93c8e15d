import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/**
 * Prints the `top` functions by self time of the largest `.cpuprofile` in `directory`
 * (one profile per thread; tsx's loader runs in a worker, the main thread's is the largest).
 */
export function printCpuProfileSummary(directory: string, top: number): void {
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
  for (const [key, hits] of [...selfHits].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
