import { LabeledMetric, type Series, splitArguments } from "./labeled-metric.js";
import type { LabelValues, MetricOptions, MetricSample } from "./metric-types.js";

interface CounterData {
  value: number;
}

/**
 * A value that only goes up (requests served, rejections). Made by a registry.
 *
 * @example
 * const jobs = registry.counter({ name: "jobs_total", help: "Jobs run", labelNames: ["kind"] });
 * jobs.inc({ kind: "email" });
 */
export class Counter<Name extends string = string> extends LabeledMetric<Name, CounterData> {
  readonly type = "counter";

  constructor(options: MetricOptions<Name, Counter<Name>>) {
    super(options as MetricOptions<Name, unknown>);
  }

  inc(value?: number): void;
  inc(labels: LabelValues<Name>, value?: number): void;
  inc(first?: LabelValues<Name> | number, second?: number): void {
    const { labels, value } = splitArguments(first, second, 1);
    if (!(value >= 0)) throw new TypeError(`A counter only goes up: ${value} given to ${this.name}`);
    this.seriesFor(labels).value += value;
  }

  protected createData(): CounterData {
    return { value: 0 };
  }

  protected samplesOf({ labels, data }: Series<CounterData>): MetricSample[] {
    return [{ labels, value: data.value }];
  }
}
