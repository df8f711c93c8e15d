import { describe, expect, it } from "vitest";
import { ServerRateLimitError } from "../errors/server-errors.js";
import { createTestApp } from "../testing/test-kit.js";
import { getServerMetrics } from "./install-metrics.js";

function appWithMetrics(config: { enableMetrics?: boolean } = {}) {
  // Scraped anonymously below: public by the operator's choice (metrics-access.test.ts has the rule).
  const app = createTestApp({ config: { logging: { enabled: false }, metrics: { public: true }, ...config } });
  app.adapter.registerRoute({ method: "GET", path: "/items/:id", handler: () => ({ ok: true }) });
  app.adapter.registerRoute({
    method: "GET",
    path: "/limited",
    handler: () => {
      throw new ServerRateLimitError("slow down", { retryAfterMs: 1000 });
    },
  });
  app.adapter.registerRoute({
    method: "GET",
    path: "/events",
    handler: async function* () {
      yield { type: "text-delta", data: { delta: "a" } };
      yield { type: "finish", data: { reason: "stop" } };
    },
  });
  return app;
}

type MetricJson = { name: string; values: Array<{ value: number; labels: Record<string, string> }> };

describe("metrics", () => {
  it("counts by route template (never raw paths), 404s as unmatched, and 429s as rate-limit rejections", async () => {
    const app = appWithMetrics();
    await app.request({ url: "/api/items/1" });
    await app.request({ url: "/api/items/2" });
    await app.request({ url: "/api/nowhere/123" });
    await app.request({ url: "/api/limited" });
    const response = await app.request({ url: "/api/metrics" });
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toContain("text/plain");
    const text = response.text;
    expect(text).toContain('conduit_http_requests_total{method="GET",route="/api/items/:id",status="200"} 2');
    expect(text).toContain('conduit_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain('conduit_rate_limit_rejections_total{method="GET",route="/api/limited"} 1');
    expect(text).toContain('conduit_http_request_duration_seconds_count{method="GET",route="/api/items/:id",status="200"} 2');
    expect(text).not.toContain("/api/items/1");
    expect(text).not.toContain("nowhere");
    expect(text).toMatch(/conduit_active_connections 0/);
  });

  it("observes a stream when it ends and tracks active streams", async () => {
    const app = appWithMetrics();
    const metrics = getServerMetrics(app.adapter);
    const pending = await app.adapter.handler.dispatch({
      method: "GET",
      url: "/api/events",
      headers: {},
      clientAddress: "127.0.0.1",
      body: { kind: "none" },
    });
    expect((await metrics?.activeStreams.get())?.values[0]?.value).toBe(1);
    let text = "";
    for await (const chunk of pending.body as AsyncIterable<string>) text += chunk;
    pending.done();
    expect(text).toContain("event: finish");
    expect((await metrics?.activeStreams.get())?.values[0]?.value).toBe(0);
    const json = await app.request({ url: "/api/metrics", headers: { accept: "application/json" } });
    expect(json.headers["content-type"]).toContain("application/json");
    const all = json.json<MetricJson[]>();
    const requests = all.find((metric) => metric.name === "conduit_http_requests_total");
    expect(requests?.values).toContainEqual({ value: 1, labels: { method: "GET", route: "/api/events", status: "200" } });
    expect(all.map((metric) => metric.name)).toEqual(
      expect.arrayContaining([
        "conduit_http_request_duration_seconds",
        "conduit_active_connections",
        "conduit_active_streams",
        "conduit_rate_limit_rejections_total",
      ]),
    );
  });

  it("keeps one registry per server", async () => {
    const first = appWithMetrics();
    const second = appWithMetrics();
    await first.request({ url: "/api/items/1" });
    expect((await first.request({ url: "/api/metrics" })).text).toContain('route="/api/items/:id"');
    expect((await second.request({ url: "/api/metrics" })).text).not.toContain('route="/api/items/:id"');
    expect(getServerMetrics(first.adapter)?.registry).not.toBe(getServerMetrics(second.adapter)?.registry);
  });

  it("is absent when enableMetrics is false", async () => {
    const app = appWithMetrics({ enableMetrics: false });
    expect((await app.request({ url: "/api/metrics" })).status).toBe(404);
    expect(getServerMetrics(app.adapter)).toBeUndefined();
  });
});
