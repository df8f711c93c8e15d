import type { MetricJson, MetricSample } from "./metric-types.js";

/** One sample's identity: its series name and its labels in a stable order. */
const sampleKey = (sample: MetricSample) =>
  `${sample.metricName ?? ""}|${JSON.stringify(Object.entries(sample.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;

/**
 * Sums the metrics of several processes (cluster workers) into one set: samples of the same
 * metric, series and labels add up, which is right for counters, histograms and the gauges
 * Conduit keeps (connections and streams open per process). Order is first appearance.
 *
 * @example
 * formatPrometheusText(aggregateMetrics([await first.getMetricsAsJSON(), await second.getMetricsAsJSON()]));
 */
export function aggregateMetrics(perProcess: ReadonlyArray<readonly MetricJson[]>): MetricJson[] {
  const metrics = new Map<string, { metric: MetricJson; samples: Map<string, MetricSample> }>();
  for (const processMetrics of perProcess) {
    for (const metric of processMetrics) {
      let entry = metrics.get(metric.name);
      if (entry === undefined) {
        entry = { metric: { ...metric, values: [] }, samples: new Map() };
        metrics.set(metric.name, entry);
      }
      for (const sample of metric.values) {
        const key = sampleKey(sample);
        const existing = entry.samples.get(key);
        if (existing) existing.value += sample.value;
        else entry.samples.set(key, { ...sample, labels: { ...sample.labels } });
      }
    }
  }
  return [...metrics.values()].map(({ metric, samples }) => ({ ...metric, values: [...samples.values()] }));
}
