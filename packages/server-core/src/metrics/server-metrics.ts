import type { Counter, Gauge, Registry } from "prom-client";
import { loadPromClient } from "./load-prom-client.js";
import { type RequestHistogram, requestHistogram } from "./request-histogram.js";

/** What the connection gauge reads at scrape time. */
export interface ConnectionSource {
  getActiveConnectionCount(): number;
}

/**
 * The metrics of one server, on its own `Registry` (never prom-client's global one, so
 * several servers in one process keep separate numbers). Route labels are route
 * templates (`/api/tools/:name`) or `unmatched`, never raw paths: cardinality stays bounded.
 *
 * @example
 * const metrics = new ServerMetrics(adapter);
 * metrics.observeRequest("GET", "/api/tools/:name", 200, 0.012);
 * await metrics.registry.metrics(); // Prometheus text
 */
export class ServerMetrics {
  readonly registry: Registry;
  readonly requests: Counter<"method" | "route" | "status">;
  readonly duration: RequestHistogram;
  readonly activeConnections: Gauge;
  readonly activeStreams: Gauge;
  readonly rateLimitRejections: Counter<"method" | "route">;

  constructor(source: ConnectionSource) {
    const { Counter, Gauge, Registry } = loadPromClient();
    this.registry = new Registry();
    const registers = [this.registry];
    const RequestHistogramClass = requestHistogram();
    const duration = new RequestHistogramClass({
      name: "conduit_http_request_duration_seconds",
      help: "HTTP request latency in seconds (streams: until the last byte)",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.duration = duration;
    this.requests = new Counter({
      name: "conduit_http_requests_total",
      help: "HTTP requests by method, route template and status",
      labelNames: ["method", "route", "status"],
      registers,
      // Read from the histogram's counts at scrape time: no second bookkeeping per request.
      collect() {
        this.reset();
        for (const { labels, count } of duration.counts()) this.inc(labels, count);
      },
    });
    this.activeConnections = new Gauge({
      name: "conduit_active_connections",
      help: "Open TCP connections",
      registers,
      collect() {
        this.set(source.getActiveConnectionCount());
      },
    });
    this.activeStreams = new Gauge({ name: "conduit_active_streams", help: "Streamed responses in progress", registers });
    this.rateLimitRejections = new Counter({
      name: "conduit_rate_limit_rejections_total",
      help: "Requests rejected with 429 by method and route template",
      labelNames: ["method", "route"],
      registers,
    });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.duration.record(method, route, status, seconds);
    if (status === 429) this.rateLimitRejections.inc({ method, route });
  }
}
