import { LabeledMetric, type Series, splitArguments } from "./labeled-metric.js";
import type { LabelValues, MetricOptions, MetricSample } from "./metric-types.js";

interface GaugeData {
  value: number;
}

/**
 * A value that goes up and down (open connections, streams in progress). Made by a registry.
 *
 * @example
 * const queued = registry.gauge({ name: "queue_depth", help: "Jobs waiting" });
 * queued.inc(); queued.dec(); queued.set(3);
 */
export class Gauge<Name extends string = string> extends LabeledMetric<Name, GaugeData> {
  readonly type = "gauge";

  constructor(options: MetricOptions<Name, Gauge<Name>>) {
    super(options as MetricOptions<Name, unknown>);
  }

  set(value: number): void;
  set(labels: LabelValues<Name>, value: number): void;
  set(first: LabelValues<Name> | number, second?: number): void {
    const { labels, value } = splitArguments(first, second, Number.NaN);
    this.seriesFor(labels).value = value;
  }

  inc(value?: number): void;
  inc(labels: LabelValues<Name>, value?: number): void;
  inc(first?: LabelValues<Name> | number, second?: number): void {
    const { labels, value } = splitArguments(first, second, 1);
    this.seriesFor(labels).value += value;
  }

  dec(value?: number): void;
  dec(labels: LabelValues<Name>, value?: number): void;
  dec(first?: LabelValues<Name> | number, second?: number): void {
    const { labels, value } = splitArguments(first, second, 1);
    this.seriesFor(labels).value -= value;
  }

  protected createData(): GaugeData {
    return { value: 0 };
  }

  protected samplesOf({ labels, data }: Series<GaugeData>): MetricSample[] {
    return [{ labels, value: data.value }];
  }
}
