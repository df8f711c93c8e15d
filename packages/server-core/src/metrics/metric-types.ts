/** Label values by label name, as given to `inc`, `set` and `observe`. */
export type LabelValues<Name extends string = string> = Partial<Record<Name, string | number>>;

/** One exposed sample. `metricName` names a histogram's `_bucket`, `_sum` and `_count` series. */
export interface MetricSample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export type MetricType = "counter" | "gauge" | "histogram";

/**
 * A metric as data: what `getMetricsAsJSON()` returns, what cluster workers send to be
 * summed, and what the text exposition is written from. The shape is prom-client's, so
 * tools that read its JSON read ours.
 */
export interface MetricJson {
  name: string;
  help: string;
  type: MetricType;
  values: MetricSample[];
  /** How values of the same series from several processes combine (always summed here). */
  aggregator: "sum";
}

/** What a registry holds: anything that can say what it measures now. */
export interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  get(): Promise<MetricJson>;
  reset(): void;
}

export interface MetricOptions<Name extends string, Self> {
  /** Prometheus metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
  name: string;
  help: string;
  labelNames?: readonly Name[];
  /** Runs before every read (a scrape), e.g. to set a gauge from a live source. */
  collect?: (this: Self) => void | Promise<void>;
}
