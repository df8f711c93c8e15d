import * as promClient from "prom-client";
import { describe, expect, it } from "vitest";
import { aggregateMetrics } from "./aggregate-metrics.js";
import { MetricsRegistry } from "./metrics-registry.js";
import { formatPrometheusText } from "./prometheus-text.js";

// prom-client (a dev dependency only) is the reference: the same metrics, fed the same
// updates, must expose the same text and JSON.

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OBSERVATIONS: Array<[string, string, string, number]> = [
  ["GET", "/api/items/:id", "200", 0.003],
  ["GET", "/api/items/:id", "200", 0.005], // on a bound: counted in that bucket
  ["GET", "/api/items/:id", "200", 0.7],
  ["POST", "/api/items", "201", 12],
  ["GET", "unmatched", "404", 45], // above the last bound: only +Inf
  ["GET", 'quote"back\\slash\nnewline', "500", 0.02],
];
const LABELS = ["method", "route", "status"] as const;

function twoRegistries() {
  const ours = new MetricsRegistry();
  const theirs = new promClient.Registry();
  const registers = [theirs];
  const help = "latency with a \\ backslash\nand a newline";
  const histograms = [
    ours.histogram({ name: "latency_seconds", help, labelNames: LABELS, buckets: BUCKETS }),
    new promClient.Histogram({ name: "latency_seconds", help, labelNames: LABELS, buckets: BUCKETS, registers }),
  ] as const;
  const counters = [
    ours.counter({ name: "jobs_total", help: "jobs", labelNames: ["kind"] }),
    new promClient.Counter({ name: "jobs_total", help: "jobs", labelNames: ["kind"], registers }),
  ] as const;
  const gauges = [
    ours.gauge({ name: "queue_depth", help: "depth" }),
    new promClient.Gauge({ name: "queue_depth", help: "depth", registers }),
  ] as const;
  const untouched = [
    ours.counter({ name: "untouched_total", help: "never updated" }),
    new promClient.Counter({ name: "untouched_total", help: "never updated", registers }),
  ] as const;
  for (const [method, route, status, seconds] of OBSERVATIONS) {
    for (const histogram of histograms) histogram.observe({ method, route, status }, seconds);
  }
  for (const counter of counters) {
    counter.inc({ kind: "email" });
    counter.inc({ kind: "email" }, 2.5);
    counter.inc({ kind: "sms" });
  }
  for (const gauge of gauges) {
    gauge.set(5);
    gauge.inc();
    gauge.dec(3);
  }
  return { ours, theirs, untouched };
}

/** Label order inside braces is free in the format; compare each line's labels as a set. */
function normalized(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line !== "") // blank lines between metrics mean nothing in the format
    .map((line) =>
      line.replace(
        /\{(.*)\}/,
        (_, labels: string) =>
          `{${labels
            .match(/[a-z_]+="(?:[^"\\]|\\.)*"/g)
            ?.sort()
            .join(",")}}`,
      ),
    )
    .sort();
}

describe("MetricsRegistry", () => {
  it("exposes what prom-client exposes for the same counters, gauges and histograms, as text and JSON", async () => {
    const { ours, theirs } = twoRegistries();
    expect(normalized(await ours.metrics())).toEqual(normalized(await theirs.metrics()));
    type Json = { name: string; values: Array<{ labels: object; value: number; metricName?: string }> };
    const byName = <M extends { name: string }>(metrics: M[]) => [...metrics].sort((a, b) => a.name.localeCompare(b.name));
    const theirJson = byName((await theirs.getMetricsAsJSON()) as unknown as Json[]).map((metric) => ({
      ...metric,
      values: metric.values.map(({ labels, value, metricName }) => ({
        labels: { ...labels },
        value,
        ...(metricName ? { metricName } : {}),
      })),
    }));
    expect(byName(await ours.getMetricsAsJSON())).toEqual(theirJson);
    expect(ours.contentType).toBe(theirs.contentType);
  });

  it("sums the metrics of several processes as prom-client's AggregatorRegistry does", async () => {
    const first = twoRegistries();
    const second = twoRegistries();
    const ours = formatPrometheusText(aggregateMetrics([await first.ours.getMetricsAsJSON(), await second.ours.getMetricsAsJSON()]));
    const theirs = await promClient.AggregatorRegistry.aggregate([
      await first.theirs.getMetricsAsJSON(),
      await second.theirs.getMetricsAsJSON(),
    ]).metrics();
    expect(normalized(ours)).toEqual(normalized(theirs));
    expect(ours).toContain('jobs_total{kind="email"} 7');
  });

  it("runs collect hooks before a read, resets, and refuses bad names, unknown labels and decrements of a counter", async () => {
    const registry = new MetricsRegistry();
    let live = 3;
    registry.gauge({
      name: "live_things",
      help: "read at scrape time",
      collect() {
        this.set(live);
      },
    });
    expect(await registry.metrics()).toContain("live_things 3");
    live = 4;
    expect(await registry.metrics()).toContain("live_things 4");
    const counter = registry.counter({ name: "events_total", help: "events", labelNames: ["kind"] });
    counter.inc({ kind: "a" }, 2);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('events_total{kind="a"}');
    expect(() => counter.inc({ kind: "a" }, -1)).toThrow(/only goes up/);
    expect(() => counter.inc({ other: "x" } as never)).toThrow(/Unknown label "other"/);
    expect(() => registry.counter({ name: "bad name", help: "" })).toThrow(/Invalid metric name/);
    expect(() => registry.histogram({ name: "h", help: "", labelNames: ["le"] })).toThrow(/Invalid label name "le"/);
    expect(() => registry.counter({ name: "events_total", help: "again" })).toThrow(/already registered/);
    expect(registry.getSingleMetric("events_total")).toBe(counter);
  });

  it("keeps label sets apart whatever their values hold", async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter({ name: "pairs_total", help: "pairs", labelNames: ["a", "b"] });
    // Values that would join into the same string with any one separator character.
    for (const [a, b] of [
      ["x\u0001", "y"],
      ["x", "\u0001y"],
      ["x:1", "y"],
      ["x", "1:y"],
    ])
      counter.inc({ a, b });
    const { values } = await counter.get();
    expect(values.map((sample) => [sample.labels.a, sample.labels.b, sample.value])).toEqual([
      ["x\u0001", "y", 1],
      ["x", "\u0001y", 1],
      ["x:1", "y", 1],
      ["x", "1:y", 1],
    ]);
  });

  it("counts histogram observations per label set", () => {
    const registry = new MetricsRegistry();
    const histogram = registry.histogram({ name: "h_seconds", help: "h", labelNames: ["route"], buckets: [1] });
    histogram.observe({ route: "/a" }, 0.5);
    histogram.observe({ route: "/a" }, 2);
    histogram.observe({ route: "/b" }, 0.1);
    expect(histogram.seriesCounts()).toEqual([
      { labels: { route: "/a" }, count: 2 },
      { labels: { route: "/b" }, count: 1 },
    ]);
    expect(() => histogram.observe({ route: "/a" }, Number.NaN)).toThrow(/not a number/);
  });
});
