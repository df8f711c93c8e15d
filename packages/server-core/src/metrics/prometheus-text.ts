import type { MetricJson, MetricSample } from "./metric-types.js";

/** The Prometheus text exposition format's content type (version 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeLabelValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return Number.isNaN(value) ? "NaN" : String(value);
}

function formatSample(name: string, sample: MetricSample): string {
  const labels = Object.entries(sample.labels).map(([label, value]) => `${label}="${escapeLabelValue(String(value))}"`);
  const series = labels.length > 0 ? `${sample.metricName ?? name}{${labels.join(",")}}` : (sample.metricName ?? name);
  return `${series} ${formatValue(sample.value)}`;
}

/**
 * Metrics in the Prometheus text exposition format: `# HELP` and `# TYPE` per metric, then
 * one line per sample, with help text and label values escaped as the format requires.
 *
 * @example
 * formatPrometheusText(await registry.getMetricsAsJSON()); // "# HELP jobs_total Jobs run\n…"
 */
export function formatPrometheusText(metrics: readonly MetricJson[]): string {
  const lines: string[] = [];
  for (const metric of metrics) {
    lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`, `# TYPE ${metric.name} ${metric.type}`);
    for (const sample of metric.values) lines.push(formatSample(metric.name, sample));
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
