import {
  type FakeAdminReports,
  type FakeAnthropic,
  billedAnthropicExchange,
  startFakeAdminReports,
  startFakeAnthropic,
} from "@conduit-ai/fakes";
import { type Governance, createGovernance } from "@conduit-ai/governance";
import { type ConduitProxy, createProxy } from "@conduit-ai/proxy";
import { registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// GET /admin/reconcile: the vendor's own reports (the fake Anthropic Admin API, paged and
// rate-limited) beside governance's usage history, per day × model. Traffic through Conduit's
// proxy matches to the token and the pico-dollar; a call behind its back is the exact drift.

const ADMIN = "admin-key-for-reconcile-conformance-0123456789";
const VIEWER = "viewer-key-for-reconcile-conformance-012345678";
const TEAM_ADMIN = "team-admin-key-for-reconcile-conformance-01234";
const VENDOR_ADMIN_KEY = "sk-ant-admin01-conformance";
const MODEL = "claude-sonnet-4-5";
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const priceOf = (
  _model: string,
  usage: { input: number; output: number; cacheRead?: number; cacheWrite5m?: number; cacheWrite1h?: number },
) =>
  (usage.input * PRICE.input +
    usage.output * PRICE.output +
    (usage.cacheRead ?? 0) * PRICE.cacheRead +
    ((usage.cacheWrite5m ?? 0) + (usage.cacheWrite1h ?? 0)) * PRICE.cacheWrite) /
  1e6;

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would
type Json = Record<string, any>;

forEachAdapter("admin reconcile: the vendor's reports beside the usage history", ({ start }) => {
  let anthropic: FakeAnthropic;
  let reports: FakeAdminReports;
  let governance: Governance | undefined;
  let proxy: ConduitProxy | undefined;

  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    anthropic.credentials.add("sk-ant-account");
    reports = await startFakeAdminReports({ vendor: "anthropic", adminKey: VENDOR_ADMIN_KEY });
  });
  afterEach(async () => {
    await proxy?.close();
    await governance?.close();
    await anthropic.close();
    await reports.close();
    governance = undefined;
    proxy = undefined;
  });

  async function serve(adminKey = VENDOR_ADMIN_KEY): Promise<RunningServer> {
    governance = await createGovernance({
      keys: { store: "memory" },
      admin: { keys: [ADMIN, { key: VIEWER, role: "viewer" }, { key: TEAM_ADMIN, role: "team-admin:alpha" }] },
      prices: { [MODEL]: PRICE },
      reconcile: {
        providers: [{ name: "anthropic", vendor: "anthropic", adminKey, baseURL: `${reports.url}/v1` }],
        options: { baseRetryWaitMs: 10 },
      },
      env: {},
    });
    proxy = createProxy(
      {
        enabled: true,
        retryBaseMs: 5,
        upstream: { anthropic: anthropic.url },
        accounts: [{ id: "a", type: "api-key", apiKey: "sk-ant-account" }],
      },
      { gate: governance.gate },
    );
    return start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        registerAllRoutes(adapter, undefined, { proxy });
        governance?.install(adapter);
      },
    });
  }

  const call = async (server: RunningServer, key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(server.url(path), {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Json };
  };
  const today = () => new Date().toISOString().slice(0, 10);

  /** Two calls through the proxy on a virtual key (JSON and streamed), billed by the vendor as it answered them. */
  async function traffic(server: RunningServer) {
    const key = (await call(server, ADMIN, "POST", "/admin/keys", { name: "reconcile" })).json.data.key as string;
    for (const stream of [false, true]) {
      const response = await fetch(server.url("/v1/messages"), {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, max_tokens: 32, stream, messages: [{ role: "user", content: "hello" }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    for (let tries = 0; tries < 100; tries++) {
      const rows = (await call(server, ADMIN, "GET", "/admin/usage?groupBy=day")).json.data as Array<{ requests: number }>;
      if (rows.reduce((sum, row) => sum + row.requests, 0) >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const exchange of anthropic.exchanges) {
      const billed = billedAnthropicExchange(exchange, { time: new Date().toISOString(), apiKeyId: "apikey_pool", price: priceOf });
      if (billed) reports.bill(billed);
    }
    expect(reports.ledger).toHaveLength(2);
  }

  it("zero drift for traffic through Conduit; the exact drift for a call behind its back; a 429 is waited out", async () => {
    const server = await serve();
    await traffic(server);
    reports.rateLimitEvery = 2;
    const clean = await call(server, ADMIN, "GET", `/admin/reconcile?provider=anthropic&from=${today()}&to=${today()}`);
    expect(clean.status).toBe(200);
    expect(clean.json.data.rows).toHaveLength(1);
    expect(clean.json.data.rows[0]).toMatchObject({
      day: today(),
      model: MODEL,
      status: "match",
      conduit: { requests: 2 },
      drift: { tokens: 0, usd: 0 },
    });
    expect(clean.json.data.rows[0].vendor.apiKeys).toEqual([expect.objectContaining({ id: "apikey_pool" })]);
    expect(clean.json.data.totals.driftingRows).toBe(0);
    expect(Math.abs(clean.json.data.totals.vendorUsd - clean.json.data.totals.conduitUsd)).toBeLessThan(1e-9);
    expect(reports.rateLimited).toBeGreaterThan(0);

    reports.bill({
      time: new Date().toISOString(),
      model: MODEL,
      apiKeyId: "apikey_other",
      input: 500,
      output: 50,
      usd: priceOf(MODEL, { input: 500, output: 50 }),
    });
    const drifting = await call(server, VIEWER, "GET", `/admin/reconcile?provider=anthropic&from=${today()}&to=${today()}`);
    expect(drifting.status).toBe(200);
    expect(drifting.json.data.rows[0]).toMatchObject({ status: "drift", drift: { inputTokens: 500, outputTokens: 50, tokens: 550 } });
    expect(drifting.json.data.rows[0].drift.usd).toBeCloseTo(0.00225, 12);
  });

  it("a day Conduit saw traffic the vendor never reported is drift, not a match", async () => {
    const server = await serve();
    await traffic(server);
    reports.ledger.splice(0);
    const answer = await call(server, ADMIN, "GET", `/admin/reconcile?provider=anthropic&from=${today()}&to=${today()}`);
    expect(answer.json.data.rows[0]).toMatchObject({ status: "missing-at-vendor", vendor: null });
    expect(answer.json.data.rows[0].drift.tokens).toBeLessThan(0);
    expect(answer.json.data.totals.driftingRows).toBe(1);
  });

  it("bad input is a 400 in the envelope; a team-admin is refused; no credential is a 401; the vendor refusing is a 502 without the key", async () => {
    const server = await serve("sk-ant-admin01-revoked");
    const path = (query: string) => `/admin/reconcile?${query}`;
    const bad = [
      path("provider=anthropic&from=2026-13-01&to=2026-12-01"),
      path("provider=anthropic&from=2026-12-02&to=2026-12-01"),
      path("provider=anthropic&from=2024-01-01&to=2026-12-01"),
      path("provider=openai&from=2026-12-01&to=2026-12-01"),
      path("provider=anthropic&from=yesterday&to=2026-12-01"),
      path("from=2026-12-01&to=2026-12-01"),
    ];
    for (const url of bad) {
      const answer = await call(server, ADMIN, "GET", url);
      expect(answer.status, url).toBe(400);
      expect(answer.json.error.code, url).toBe("VALIDATION_ERROR");
    }
    const teamAdmin = await call(server, TEAM_ADMIN, "GET", path("provider=anthropic&from=2026-12-01&to=2026-12-01"));
    expect(teamAdmin.status).toBe(403);
    expect(teamAdmin.json.error.code).toBe("ADMIN_ROLE_FORBIDDEN");
    expect((await fetch(server.url(path("provider=anthropic&from=2026-12-01&to=2026-12-01")))).status).toBe(401);
    const refused = await call(server, ADMIN, "GET", path("provider=anthropic&from=2026-12-01&to=2026-12-01"));
    expect(refused.status).toBe(502);
    expect(refused.json.error).toMatchObject({ code: "VENDOR_REPORT_FAILED", details: { provider: "anthropic", vendorStatus: 401 } });
    expect(JSON.stringify(refused.json)).not.toContain("revoked");
  });
});
