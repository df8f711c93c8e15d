import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { type RequestHistogram, requestHistogram } from "./request-histogram.js";

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OBSERVATIONS: Array<[string, string, number, number]> = [
  ["GET", "/api/items/:id", 200, 0.003],
  ["GET", "/api/items/:id", 200, 0.005], // on a bound: counted in that bucket
  ["GET", "/api/items/:id", 200, 0.7],
  ["POST", "/api/items", 201, 12],
  ["GET", "unmatched", 404, 45], // above the last bound: only +Inf
  ["GET", 'quote"back\\slash', 500, 0.02],
];

function pair(): { ours: RequestHistogram; theirs: Histogram<"method" | "route" | "status">; ourRegistry: Registry; theirRegistry: Registry } {
  const ourRegistry = new Registry();
  const theirRegistry = new Registry();
  const config = { name: "latency_seconds", help: "latency", labelNames: ["method", "route", "status"] as const, buckets: BUCKETS };
  const RequestHistogramClass = requestHistogram();
  const ours = new RequestHistogramClass({ ...config, labelNames: [...config.labelNames], registers: [ourRegistry] });
  const theirs = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [theirRegistry] });
  for (const [method, route, status, seconds] of OBSERVATIONS) {
    ours.record(method, route, status, seconds);
    theirs.observe({ method, route, status: String(status) }, seconds);
  }
  return { ours, theirs, ourRegistry, theirRegistry };
}

describe("RequestHistogram", () => {
  it("exposes exactly what prom-client's own Histogram exposes for the same observations, as text and JSON", async () => {
    const { ourRegistry, theirRegistry } = pair();
    expect(await ourRegistry.metrics()).toBe(await theirRegistry.metrics());
    expect(await ourRegistry.getMetricsAsJSON()).toEqual(await theirRegistry.getMetricsAsJSON());
  });

  it("keeps values given to the inherited observe(), counts per label set, and resets", async () => {
    const { ours, theirs, ourRegistry, theirRegistry } = pair();
    ours.observe({ method: "PUT", route: "/x", status: "204" }, 0.2);
    theirs.observe({ method: "PUT", route: "/x", status: "204" }, 0.2);
    const sorted = (text: string) => text.split("\n").sort().join("\n");
    expect(sorted(await ourRegistry.metrics())).toBe(sorted(await theirRegistry.metrics()));
    expect(ours.counts()).toContainEqual({ labels: { method: "GET", route: "/api/items/:id", status: "200" }, count: 3 });
    ours.reset();
    expect(ours.counts()).toEqual([]);
    expect((await ours.get()).values).toEqual([]);
  });
});
