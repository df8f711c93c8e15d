import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RouteDefinition } from "../contracts/route.js";
import type { MetricsConfig } from "../contracts/config.js";
import { joinPaths } from "../core/pipeline/path-pattern.js";
import { createMetricsAccessMiddleware } from "./metrics-access.js";
import { createMetricsMiddleware } from "./metrics-middleware.js";
import { createMetricsRoute } from "./metrics-route.js";
import { type ConnectionSource, ServerMetrics } from "./server-metrics.js";

/** The part of an adapter metrics need. */
export interface MetricsHost extends ConnectionSource {
  registerMiddleware(middleware: MiddlewareDefinition): void;
  registerRoute(route: RouteDefinition): void;
}

const installed = new WeakMap<object, ServerMetrics>();

export interface InstallMetricsOptions {
  /** `config.metrics`: who may read `/metrics` (default: admins and the token only). */
  access?: MetricsConfig;
  /** `config.basePath` (default `/api`). */
  basePath?: string;
}

/**
 * Gives a server its metrics: a per-server registry, the metrics middleware and
 * `GET ${basePath}/metrics` behind its access rule (`metricsScope`: an admin or `metrics.token`
 * reads everything; anyone the process figures only with `metrics.public: true`). Called by the
 * adapter when `enableMetrics` is true.
 *
 * @example
 * installMetrics(adapter, { access: { token: process.env.CONDUIT_METRICS_TOKEN } });
 * getServerMetrics(adapter)?.registry; // the server's MetricsRegistry
 */
export function installMetrics(host: MetricsHost, options: InstallMetricsOptions = {}): ServerMetrics {
  const existing = installed.get(host);
  if (existing) return existing;
  const metrics = new ServerMetrics(host);
  host.registerMiddleware(createMetricsMiddleware(metrics));
  host.registerMiddleware(
    createMetricsAccessMiddleware({
      ...(options.access?.public === undefined ? {} : { public: options.access.public }),
      ...(options.access?.token === undefined ? {} : { token: options.access.token }),
      readers: () => metrics.readers,
      routePath: joinPaths(options.basePath ?? "/api", "/metrics"),
    }),
  );
  host.registerRoute(createMetricsRoute(metrics));
  installed.set(host, metrics);
  return metrics;
}

/** The metrics of a server, when it has them (e.g. to add custom metrics to its registry). */
export function getServerMetrics(host: object): ServerMetrics | undefined {
  return installed.get(host);
}
