import { LabeledMetric, type Series, splitArguments } from "./labeled-metric.js";
import type { LabelValues, MetricOptions, MetricSample } from "./metric-types.js";

/** Prometheus clients' default buckets (seconds). */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Per-bucket counts (not cumulative: cumulated when read), the last slot being +Inf. */
interface HistogramData {
  counts: number[];
  sum: number;
  count: number;
}

export interface HistogramOptions<Name extends string> extends MetricOptions<Name, Histogram<Name>> {
  /** Upper bounds, inclusive (`le`); +Inf is always added. */
  buckets?: readonly number[];
}

/**
 * Observations counted into buckets (latencies, sizes). An observation costs one Map
 * lookup and a scan of the bounds; buckets are cumulated only when read. Made by a registry.
 *
 * @example
 * const latency = registry.histogram({ name: "job_seconds", help: "Job time", labelNames: ["kind"], buckets: [0.1, 1, 10] });
 * latency.observe({ kind: "email" }, 0.42);
 */
export class Histogram<Name extends string = string> extends LabeledMetric<Name, HistogramData> {
  readonly type = "histogram";
  private readonly bounds: number[];

  constructor(options: HistogramOptions<Name>) {
    const bounds = [...new Set(options.buckets ?? DEFAULT_BUCKETS)]
      .filter((bound) => bound !== Number.POSITIVE_INFINITY)
      .sort((a, b) => a - b);
    if (bounds.some((bound) => !Number.isFinite(bound))) throw new TypeError(`Histogram ${options.name}: buckets must be finite numbers`);
    super(options as MetricOptions<Name, unknown>, ["le"]);
    this.bounds = bounds;
  }

  observe(value: number): void;
  observe(labels: LabelValues<Name>, value: number): void;
  observe(first: LabelValues<Name> | number, second?: number): void {
    const { labels, value } = splitArguments(first, second, Number.NaN);
    if (Number.isNaN(value)) throw new TypeError(`Histogram ${this.name}: observed value is not a number`);
    const data = this.seriesFor(labels);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
    (data.counts[bucket] as number)++;
    data.sum += value;
    data.count++;
  }

  /** Observation counts by label set (e.g. to expose a request counter without counting twice). */
  seriesCounts(): Array<{ labels: Record<string, string>; count: number }> {
    return [...this.series.values()].map(({ labels, data }) => ({ labels, count: data.count }));
  }

  protected createData(): HistogramData {
    return { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  protected samplesOf({ labels, data }: Series<HistogramData>): MetricSample[] {
    const bucketName = `${this.name}_bucket`;
    const samples: MetricSample[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += data.counts[index] as number;
      samples.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: bucketName });
    });
    samples.push(
      { labels: { ...labels, le: "+Inf" }, value: data.count, metricName: bucketName },
      { labels, value: data.sum, metricName: `${this.name}_sum` },
      { labels, value: data.count, metricName: `${this.name}_count` },
    );
    return samples;
  }
}
