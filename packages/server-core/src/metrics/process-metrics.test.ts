import * as promClient from "prom-client";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../testing/test-kit.js";
import { MetricsRegistry } from "./metrics-registry.js";
import { processMetrics } from "./process-metrics.js";
import { ServerMetrics } from "./server-metrics.js";

/** `# HELP` and `# TYPE` lines by metric name, from a text exposition. */
function headers(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (match) found.set(`${match[2]} ${match[1]}`, match[3] as string);
  }
  return found;
}

function sample(text: string, series: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no sample ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

async function ourScrape(): Promise<string> {
  const registry = new MetricsRegistry();
  registry.registerWhenReady(processMetrics());
  return registry.metrics();
}

describe("process metrics", () => {
  it("use prom-client's default names, help, types, labels and GC buckets", async () => {
    const reference = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: reference });
    const theirs = headers(await reference.metrics());
    const ours = headers(await ourScrape());
    const names = [...ours.keys()].filter((key) => key.endsWith(" TYPE")).map((key) => key.slice(0, -" TYPE".length));
    expect(names).toEqual(
      expect.arrayContaining([
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "nodejs_heap_size_used_bytes",
        "nodejs_eventloop_lag_seconds",
        "nodejs_eventloop_lag_p99_seconds",
        "nodejs_gc_duration_seconds",
      ]),
    );
    for (const name of names) {
      expect({ name, type: ours.get(`${name} TYPE`) }).toEqual({ name, type: theirs.get(`${name} TYPE`) });
      expect({ name, help: ours.get(`${name} HELP`) }).toEqual({ name, help: theirs.get(`${name} HELP`) });
    }
  });

  it("report figures comparable to prom-client's: memory and heap of this process, CPU and GC that grow with work", async () => {
    const reference = new promClient.Registry();
    promClient.collectDefaultMetrics({ register: reference });
    const before = await ourScrape();
    // Work that burns CPU and forces collections.
    let keep: number[][] = [];
    for (let round = 0; round < 200; round++) keep = [Array.from({ length: 20_000 }, (_, index) => index * round)];
    expect(keep.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [ours, theirs] = [await ourScrape(), await reference.metrics()];
    const rss = sample(ours, "process_resident_memory_bytes");
    expect(rss).toBeGreaterThan(10 * 1024 * 1024);
    expect(Math.abs(rss - sample(theirs, "process_resident_memory_bytes")) / rss).toBeLessThan(0.25);
    expect(sample(ours, "nodejs_heap_size_used_bytes")).toBeGreaterThan(1024 * 1024);
    expect(sample(ours, "nodejs_heap_size_used_bytes")).toBeLessThanOrEqual(sample(ours, "nodejs_heap_size_total_bytes"));
    // Cumulative since the process started (prom-client counts from its own load; ours can only be larger).
    expect(sample(ours, "process_cpu_seconds_total")).toBeGreaterThan(sample(before, "process_cpu_seconds_total"));
    expect(sample(ours, "process_cpu_seconds_total")).toBeGreaterThanOrEqual(sample(theirs, "process_cpu_seconds_total"));
    expect(sample(ours, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(ours, "nodejs_eventloop_lag_seconds")).toBeLessThan(5);
    const gcCount = ours
      .split("\n")
      .filter((line) => line.startsWith("nodejs_gc_duration_seconds_count{"))
      .reduce((total, line) => total + Number(line.split(" ")[1]), 0);
    expect(gcCount).toBeGreaterThan(0);
    // Bounded labels: only the four kinds prom-client names.
    for (const line of ours.split("\n").filter((candidate) => candidate.startsWith("nodejs_gc_duration_seconds_count{"))) {
      expect(line).toMatch(/^nodejs_gc_duration_seconds_count\{kind="(major|minor|incremental|weakcb)"\} \d+$/);
    }
  });

  it("are in a server's /api/metrics (and can be turned off per registry)", async () => {
    const app = createTestApp({ config: { logging: { enabled: false }, metrics: { public: true } } });
    const text = (await app.request({ url: "/api/metrics" })).text;
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
    const json = JSON.parse((await app.request({ url: "/api/metrics", headers: { accept: "application/json" } })).text) as Array<{
      name: string;
    }>;
    expect(json.map((metric) => metric.name)).toContain("process_cpu_seconds_total");
    const bare = new ServerMetrics({ getActiveConnectionCount: () => 0 }, { processMetrics: false });
    expect(await bare.registry.metrics()).not.toContain("process_");
  });
});
