import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
}

/** The largest `.cpuprofile` in `directory` (one profile per thread; tsx's loader runs in a worker, the main thread's is the largest). */
function largestProfile(directory: string): string {
  return readdirSync(directory)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => join(directory, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0] as string;
}

/** Self time per function (ms, `name url:line`), from the sample counts spread over the profile's duration. */
function selfTimesOf(file: string): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const hits = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const count = node.hitCount ?? 0;
    total += count;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^.*\/packages\//, "")}:${lineNumber + 1}`;
    hits.set(key, (hits.get(key) ?? 0) + count);
  }
  const msPerHit = (profile.endTime - profile.startTime) / 1000 / Math.max(1, total);
  return new Map([...hits].map(([key, count]) => [key, count * msPerHit]));
}

/**
 * Prints the `top` functions by self time of the largest `.cpuprofile` in `directory`, as a share
 * of the time the process was busy (idle left out).
 */
export function printCpuProfileSummary(directory: string, top: number): void {
  const file = largestProfile(directory);
  const times = selfTimesOf(file);
  const busy = [...times].reduce((sum, [key, ms]) => (key.startsWith("(idle)") ? sum : sum + ms), 0);
  console.log(`profile: ${file} (busy ${busy.toFixed(0)} ms, idle left out)`);
  for (const [key, ms] of [...times]
    .filter(([key]) => !key.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${((ms / busy) * 100).toFixed(1).padStart(5)}% ${ms.toFixed(0).padStart(6)} ms  ${key}`);
}

/**
 * Two processes that served the same load, function by function: the `top` functions whose self
 * time grew most from `baseline` to `compared` (what the compared process spends its extra CPU on).
 */
export function printCpuProfileComparison(baseline: string, compared: string, top: number): void {
  const before = selfTimesOf(largestProfile(baseline));
  const after = selfTimesOf(largestProfile(compared));
  const busy = (times: Map<string, number>) => [...times].reduce((sum, [key, ms]) => (key.startsWith("(idle)") ? sum : sum + ms), 0);
  const extra = busy(after) - busy(before);
  console.log(
    `self time, ${compared} against ${baseline}: busy ${busy(after).toFixed(0)} ms against ${busy(before).toFixed(0)} ms (+${extra.toFixed(0)} ms)`,
  );
  const keys = new Set([...before.keys(), ...after.keys()].filter((key) => !key.startsWith("(idle)")));
  const growth = [...keys].map((key) => [key, (after.get(key) ?? 0) - (before.get(key) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
  for (const [key, ms] of growth.slice(0, top))
    console.log(
      `${ms.toFixed(0).padStart(6)} ms (${(after.get(key) ?? 0).toFixed(0).padStart(5)} against ${(before.get(key) ?? 0).toFixed(0).padStart(5)})  ${key}`,
    );
}
