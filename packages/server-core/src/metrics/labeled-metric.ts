import type { LabelValues, Metric, MetricJson, MetricOptions, MetricSample, MetricType } from "./metric-types.js";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export interface Series<Data> {
  labels: Record<string, string>;
  data: Data;
}

/**
 * What counters, gauges and histograms share: name and label checks, one series per label
 * set (a Map keyed by the joined label values: one lookup per update) and the read that
 * runs the `collect` hook first. A metric without labels is exposed (as 0) before its
 * first update, as Prometheus clients do.
 */
export abstract class LabeledMetric<Name extends string, Data> implements Metric {
  abstract readonly type: MetricType;
  readonly name: string;
  readonly help: string;
  protected readonly labelNames: readonly Name[];
  protected readonly series = new Map<string, Series<Data>>();
  private readonly collectHook: (() => void | Promise<void>) | undefined;

  constructor(options: MetricOptions<Name, unknown>, reservedLabels: readonly string[] = []) {
    if (!METRIC_NAME.test(options.name)) throw new TypeError(`Invalid metric name: ${JSON.stringify(options.name)}`);
    this.labelNames = [...(options.labelNames ?? [])];
    for (const label of this.labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith("__") || reservedLabels.includes(label)) {
        throw new TypeError(`Invalid label name ${JSON.stringify(label)} on metric ${options.name}`);
      }
    }
    this.name = options.name;
    this.help = options.help;
    this.collectHook = options.collect?.bind(this as never);
  }

  protected abstract createData(): Data;
  protected abstract samplesOf(series: Series<Data>): MetricSample[];

  /** The series of a label set, made on first use. Unknown label names are a programming error. */
  protected seriesFor(labels: LabelValues<Name> | undefined): Data {
    let key = "";
    if (labels !== undefined) {
      for (const label in labels) {
        if (!this.labelNames.includes(label as Name)) throw new TypeError(`Unknown label ${JSON.stringify(label)} on metric ${this.name}`);
      }
      // Length-prefixed, so no two label sets share a key whatever their values hold.
      for (const label of this.labelNames) {
        const value = String(labels[label] ?? "");
        key += `${value.length}:${value}`;
      }
    }
    let series = this.series.get(key);
    if (series === undefined) {
      const stored: Record<string, string> = {};
      for (const label of this.labelNames) {
        const value = labels?.[label];
        if (value !== undefined) stored[label] = String(value);
      }
      series = { labels: stored, data: this.createData() };
      this.series.set(key, series);
    }
    return series.data;
  }

  async get(): Promise<MetricJson> {
    await this.collectHook?.();
    if (this.labelNames.length === 0 && this.series.size === 0) this.seriesFor(undefined);
    const values = [...this.series.values()].flatMap((series) => this.samplesOf(series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: "sum" };
  }

  reset(): void {
    this.series.clear();
  }
}

/** `inc(5)` or `inc({route}, 5)`: the overloads every update method takes. */
export function splitArguments<Name extends string>(
  first: LabelValues<Name> | number | undefined,
  second: number | undefined,
  fallback: number,
) {
  return typeof first === "number" ? { labels: undefined, value: first } : { labels: first, value: second ?? fallback };
}
