import type { MiddlewareDefinition } from "../contracts/middleware.js";
import type { RouteDefinition } from "../contracts/route.js";
import { createMetricsMiddleware } from "./metrics-middleware.js";
import { createMetricsRoute } from "./metrics-route.js";
import { type ConnectionSource, ServerMetrics } from "./server-metrics.js";

/** The part of an adapter metrics need. */
export interface MetricsHost extends ConnectionSource {
  registerMiddleware(middleware: MiddlewareDefinition): void;
  registerRoute(route: RouteDefinition): void;
}

const installed = new WeakMap<object, ServerMetrics>();

/**
 * Gives a server its metrics: a per-server registry, the metrics middleware and
 * `GET ${basePath}/metrics`. Called by the adapter when `enableMetrics` is true.
 *
 * @example
 * installMetrics(adapter);
 * getServerMetrics(adapter)?.registry; // the server's MetricsRegistry
 */
export function installMetrics(host: MetricsHost): ServerMetrics {
  const existing = installed.get(host);
  if (existing) return existing;
  const metrics = new ServerMetrics(host);
  host.registerMiddleware(createMetricsMiddleware(metrics));
  host.registerRoute(createMetricsRoute(metrics));
  installed.set(host, metrics);
  return metrics;
}

/** The metrics of a server, when it has them (e.g. to add custom metrics to its registry). */
export function getServerMetrics(host: object): ServerMetrics | undefined {
  return installed.get(host);
}
