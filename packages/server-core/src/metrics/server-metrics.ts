import type { Counter } from "./counter.js";
import type { Gauge } from "./gauge.js";
import type { Histogram } from "./histogram.js";
import { MetricsRegistry } from "./metrics-registry.js";
import type { MetricsReaderCheck } from "./metrics-access.js";
import { processMetrics } from "./process-metrics.js";

/** What the connection gauge reads at scrape time. */
export interface ConnectionSource {
  getActiveConnectionCount(): number;
}

export interface ServerMetricsOptions {
  /** The process figures prom-client's defaults give (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`…); default true. */
  processMetrics?: boolean;
}

type RequestLabelName = "method" | "route" | "status";

/**
 * The metrics of one server, on its own registry. Route labels are route templates
 * (`/api/tools/:name`) or `unmatched`, never raw paths: cardinality stays bounded.
 *
 * @example
 * const metrics = new ServerMetrics(adapter);
 * metrics.observeRequest("GET", "/api/tools/:name", 200, 0.012);
 * await metrics.registry.metrics(); // Prometheus text
 */
export class ServerMetrics {
  readonly registry = new MetricsRegistry();
  readonly requests: Counter<RequestLabelName>;
  readonly duration: Histogram<RequestLabelName>;
  readonly activeConnections: Gauge;
  readonly activeStreams: Gauge;
  readonly rateLimitRejections: Counter<"method" | "route">;
  readonly #readers: MetricsReaderCheck[] = [];

  constructor(source: ConnectionSource, options: ServerMetricsOptions = {}) {
    const duration = this.registry.histogram<RequestLabelName>({
      name: "conduit_http_request_duration_seconds",
      help: "HTTP request latency in seconds (streams: until the last byte)",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.duration = duration;
    this.requests = this.registry.counter<RequestLabelName>({
      name: "conduit_http_requests_total",
      help: "HTTP requests by method, route template and status",
      labelNames: ["method", "route", "status"],
      // Read from the histogram's counts at scrape time: no second bookkeeping per request.
      collect() {
        this.reset();
        for (const { labels, count } of duration.seriesCounts()) this.inc(labels, count);
      },
    });
    this.activeConnections = this.registry.gauge({
      name: "conduit_active_connections",
      help: "Open TCP connections",
      collect() {
        this.set(source.getActiveConnectionCount());
      },
    });
    this.activeStreams = this.registry.gauge({ name: "conduit_active_streams", help: "Streamed responses in progress" });
    this.rateLimitRejections = this.registry.counter<"method" | "route">({
      name: "conduit_rate_limit_rejections_total",
      help: "Requests rejected with 429 by method and route template",
      labelNames: ["method", "route"],
    });
    // CPU, memory, heap, event-loop lag and GC of this process (none on a web runtime).
    if (options.processMetrics !== false) this.registry.registerWhenReady(processMetrics());
  }

  /**
   * Lets the callers `isAdmin` accepts read every metric on `/metrics` (the governance series
   * included). Governance registers its admin check here; with none registered, a user of the
   * server's own auth with role `admin` is the admin.
   *
   * @example
   * getServerMetrics(server)?.allowReader((ctx) => governance.checkAdmin(ctx) === "admin");
   */
  allowReader(isAdmin: MetricsReaderCheck): void {
    this.#readers.push(isAdmin);
  }

  /** The admin checks registered with `allowReader`. */
  get readers(): readonly MetricsReaderCheck[] {
    return this.#readers;
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.duration.observe({ method, route, status }, seconds);
    if (status === 429) this.rateLimitRejections.inc({ method, route });
  }
}
