import { randomUUID } from "node:crypto";
import type { Worker } from "node:cluster";
import type { ServerAdapter } from "@conduit-ai/server-core";
import {
  type MetricJson,
  PROMETHEUS_CONTENT_TYPE,
  aggregateMetrics,
  formatPrometheusText,
  type MetricsScope,
  getServerMetrics,
  metricsForScope,
  metricsScopeOf,
} from "@conduit-ai/server-core/metrics";

type MetricsJson = MetricJson[];

/** Worker → primary: someone scraped this worker's /metrics. */
interface ScrapeRequest {
  type: "conduit:metrics-scrape";
  id: string;
  json: boolean;
  /** What the scraper may read (the worker's access guard decided): `process` leaves the governance series out. */
  scope: MetricsScope;
}
/** Primary → every worker, and the answer back. */
interface CollectRequest {
  type: "conduit:metrics-collect";
  id: string;
}
interface CollectReply {
  type: "conduit:metrics-json";
  id: string;
  metrics: MetricsJson;
}
/** Primary → the scraped worker: the whole cluster's metrics. */
interface ScrapeReply {
  type: "conduit:metrics-result";
  id: string;
  body: string;
  contentType: string;
}

/** A worker that does not answer within this is left out of the scrape (it may be starting or dying). */
const COLLECT_TIMEOUT_MS = 2_000;

const isMessage = <T extends { type: string }>(message: unknown, type: T["type"]): message is T =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;

/**
 * Worker side of cluster-wide metrics: answers the primary's collect requests with this
 * server's registry, and serves `GET /metrics` with the primary's aggregate of every worker
 * (its own metrics alone if the primary does not answer), so one scrape sees the whole port.
 *
 * @example
 * if (cluster.isWorker) shareMetricsWithCluster(server);
 */
export function shareMetricsWithCluster(server: ServerAdapter): void {
  const metrics = getServerMetrics(server);
  if (!metrics || !process.send) return;
  const waiting = new Map<string, (reply: ScrapeReply) => void>();
  process.on("message", (message: unknown) => {
    if (isMessage<CollectRequest>(message, "conduit:metrics-collect")) {
      void metrics.registry
        .getMetricsAsJSON()
        .then((json) => process.send?.({ type: "conduit:metrics-json", id: message.id, metrics: json } satisfies CollectReply));
    } else if (isMessage<ScrapeReply>(message, "conduit:metrics-result")) {
      waiting.get(message.id)?.(message);
    }
  });
  server.registerMiddleware({
    name: "cluster-metrics",
    // After auth (10) and rate limiting: the scrape is guarded like the route it replaces.
    order: 90,
    paths: ["/metrics"],
    handler: async (ctx, next) => {
      if (ctx.method !== "GET") return next();
      const id = randomUUID();
      const reply = await new Promise<ScrapeReply | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), COLLECT_TIMEOUT_MS * 2);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        process.send?.({
          type: "conduit:metrics-scrape",
          id,
          json: (ctx.header("accept") ?? "").includes("application/json"),
          scope: metricsScopeOf(ctx),
        } satisfies ScrapeRequest);
      });
      waiting.delete(id);
      if (!reply) return next();
      ctx.response.status = 200;
      ctx.setHeader("content-type", reply.contentType);
      ctx.setHeader("cache-control", "no-store");
      ctx.response.body = reply.body;
    },
  });
}

/**
 * Primary side: on a worker's scrape, collects every live worker's metrics and answers with
 * their aggregate (`aggregateMetrics`: counters, histograms and gauges summed).
 */
export function createMetricsAggregator(liveWorkers: () => Worker[]): (worker: Worker, message: unknown) => boolean {
  const collecting = new Map<string, (reply: CollectReply) => void>();
  const collect = async (): Promise<MetricsJson[]> => {
    const workers = liveWorkers();
    const replies = workers.map(
      (worker) =>
        new Promise<MetricsJson | undefined>((resolve) => {
          const id = randomUUID();
          const timer = setTimeout(() => {
            collecting.delete(id);
            resolve(undefined);
          }, COLLECT_TIMEOUT_MS);
          collecting.set(id, (reply) => {
            clearTimeout(timer);
            collecting.delete(id);
            resolve(reply.metrics);
          });
          worker.send({ type: "conduit:metrics-collect", id } satisfies CollectRequest);
        }),
    );
    return (await Promise.all(replies)).filter((json): json is MetricsJson => json !== undefined);
  };
  return (worker, message) => {
    if (isMessage<CollectReply>(message, "conduit:metrics-json")) {
      collecting.get(message.id)?.(message);
      return true;
    }
    if (!isMessage<ScrapeRequest>(message, "conduit:metrics-scrape")) return false;
    void (async () => {
      const metrics = metricsForScope(aggregateMetrics(await collect()), message.scope === "all" ? "all" : "process");
      const body = message.json ? JSON.stringify(metrics) : formatPrometheusText(metrics);
      const contentType = message.json ? "application/json; charset=utf-8" : PROMETHEUS_CONTENT_TYPE;
      if (!worker.isDead()) worker.send({ type: "conduit:metrics-result", id: message.id, body, contentType } satisfies ScrapeReply);
    })();
    return true;
  };
}
