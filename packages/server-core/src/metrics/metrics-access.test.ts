import { describe, expect, it } from "vitest";
import { createTestApp } from "../testing/test-kit.js";
import { getServerMetrics } from "./install-metrics.js";

const TOKEN = "unit-metrics-token-0123456789";

describe("/api/metrics access", () => {
  const app = (metrics?: { public?: boolean; token?: string }) => {
    const test = createTestApp({ config: { logging: { enabled: false }, ...(metrics ? { metrics } : {}) } });
    // A governance series, as governance's per-team figures would register it.
    getServerMetrics(test.adapter)
      ?.registry.counter({ name: "conduit_governance_spend_usd_total", help: "spend", labelNames: ["team"] })
      .inc({ team: "finance" }, 3);
    return test;
  };

  it("refuses an anonymous scrape by default (401), a wrong bearer (403); the token reads everything", async () => {
    const { request } = app({ token: TOKEN });
    expect((await request({ url: "/api/metrics" })).status).toBe(401);
    expect((await request({ url: "/api/metrics", headers: { authorization: "Bearer nope-nope-nope-nope" } })).status).toBe(403);
    const scraped = await request({ url: "/api/metrics", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('conduit_governance_spend_usd_total{team="finance"} 3');
  });

  it("public: the process figures for anyone, without the governance series; a registered admin check reads them", async () => {
    const { request, adapter } = app({ public: true });
    const anonymous = await request({ url: "/api/metrics" });
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toContain("conduit_http_requests_total");
    expect(anonymous.text).not.toContain("conduit_governance_");
    getServerMetrics(adapter)?.allowReader((ctx) => ctx.header("x-admin") === "yes");
    expect((await request({ url: "/api/metrics", headers: { "x-admin": "yes" } })).text).toContain("conduit_governance_spend_usd_total");
    expect((await request({ url: "/api/metrics", headers: { "x-admin": "no" } })).text).not.toContain("conduit_governance_");
  });

  it("a token shorter than 16 characters is a configuration error naming metrics.token", () => {
    expect(() => createTestApp({ config: { metrics: { token: "short" } } })).toThrow(/metrics\.token/);
  });
});
