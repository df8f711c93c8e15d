import { Counter } from "./counter.js";
import { Gauge } from "./gauge.js";
import { Histogram, type HistogramOptions } from "./histogram.js";
import type { Metric, MetricJson, MetricOptions } from "./metric-types.js";
import { PROMETHEUS_CONTENT_TYPE, formatPrometheusText } from "./prometheus-text.js";

/**
 * A set of metrics exposed together: each server has its own, so several servers in one
 * process keep separate numbers. Conduit writes the exposition itself rather than using
 * prom-client, which would add 3 MB (its summaries' tree library and OpenTelemetry's API)
 * to every install for the three metric types used here.
 *
 * @example
 * const registry = getServerMetrics(adapter)!.registry;
 * const jobs = registry.counter({ name: "jobs_total", help: "Jobs run", labelNames: ["kind"] });
 * jobs.inc({ kind: "email" });
 * await registry.metrics(); // Prometheus text, with the server's own metrics
 */
export class MetricsRegistry {
  readonly contentType = PROMETHEUS_CONTENT_TYPE;
  private readonly metricsByName = new Map<string, Metric>();
  /** Metrics still being made (their module loads lazily); every read waits for them. */
  private pending: Promise<void> | undefined;

  /** Adds a metric; a second metric of the same name is a programming error. */
  registerMetric<M extends Metric>(metric: M): M {
    if (this.metricsByName.has(metric.name)) throw new Error(`A metric named ${metric.name} is already registered`);
    this.metricsByName.set(metric.name, metric);
    return metric;
  }

  /**
   * Registers metrics that are still being made (a lazily loaded collector); reads wait for them.
   * A set that fails to load is left out, never failing a scrape.
   *
   * @example
   * registry.registerWhenReady(processMetrics());
   */
  registerWhenReady(metrics: Promise<readonly Metric[]>): void {
    const previous = this.pending;
    const loaded = metrics.then(
      (list) => {
        for (const metric of list) if (!this.metricsByName.has(metric.name)) this.registerMetric(metric);
      },
      () => {},
    );
    const all = previous ? Promise.all([previous, loaded]).then(() => {}) : loaded;
    this.pending = all;
    void all.then(() => {
      if (this.pending === all) this.pending = undefined;
    });
  }

  counter<Name extends string>(options: MetricOptions<Name, Counter<Name>>): Counter<Name> {
    return this.registerMetric(new Counter(options));
  }

  gauge<Name extends string>(options: MetricOptions<Name, Gauge<Name>>): Gauge<Name> {
    return this.registerMetric(new Gauge(options));
  }

  histogram<Name extends string>(options: HistogramOptions<Name>): Histogram<Name> {
    return this.registerMetric(new Histogram(options));
  }

  getSingleMetric(name: string): Metric | undefined {
    return this.metricsByName.get(name);
  }

  removeSingleMetric(name: string): void {
    this.metricsByName.delete(name);
  }

  resetMetrics(): void {
    for (const metric of this.metricsByName.values()) metric.reset();
  }

  /** Every metric as data (each one's `collect` hook run first). */
  async getMetricsAsJSON(): Promise<MetricJson[]> {
    if (this.pending) await this.pending;
    return Promise.all([...this.metricsByName.values()].map((metric) => metric.get()));
  }

  /** Every metric in the Prometheus text exposition format. */
  async metrics(): Promise<string> {
    return formatPrometheusText(await this.getMetricsAsJSON());
  }
}
