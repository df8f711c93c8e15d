/**
 * `@conduit-ai/server-core/metrics`: the server's Prometheus registry and its parts — per-server
 * metrics, the middleware and route that feed and expose them, and the exposition format.
 */
export { ServerMetrics } from "./server-metrics.js";
export { METRICS_MIDDLEWARE_ORDER, createMetricsMiddleware } from "./metrics-middleware.js";
export { createMetricsRoute } from "./metrics-route.js";
export { type InstallMetricsOptions, getServerMetrics, installMetrics } from "./install-metrics.js";
export {
  GOVERNANCE_SERIES_PREFIX,
  METRICS_SCOPE_STATE,
  type MetricsAccessOptions,
  type MetricsReaderCheck,
  type MetricsScope,
  createMetricsAccessMiddleware,
  metricsForScope,
  metricsScope,
  metricsScopeOf,
} from "./metrics-access.js";
export { MetricsRegistry } from "./metrics-registry.js";
export { Counter } from "./counter.js";
export { Gauge } from "./gauge.js";
export { DEFAULT_BUCKETS, Histogram, type HistogramOptions } from "./histogram.js";
export type { LabelValues, Metric, MetricJson, MetricOptions, MetricSample, MetricType } from "./metric-types.js";
export { PROMETHEUS_CONTENT_TYPE, formatPrometheusText } from "./prometheus-text.js";
export { aggregateMetrics } from "./aggregate-metrics.js";
