import { type Governance, createGovernance } from "@conduit-ai/governance";
import { createRuntime } from "@conduit-ai/runtime";
import { type ServerAdapterConfig, registerAllRoutes } from "@conduit-ai/server-core";
import { afterEach, expect, it } from "vitest";
import { type RunningServer, forEachAdapter } from "./harness.js";

// Who reads /api/metrics: the process figures only with metrics.public; the per-team governance
// series only ever with an admin credential or the metrics token; nobody by default.

const ADMIN_KEY = "admin-key-for-metrics-access-0123456789abcdef";
const METRICS_TOKEN = "metrics-token-for-scrapers-0123456789";

forEachAdapter("metrics access", ({ start }) => {
  let governance: Governance | undefined;
  afterEach(async () => {
    await governance?.close();
    governance = undefined;
  });

  /** A gateway as `conduit serve` with `auth.type: "virtual-key"` builds it: one team's key has been used. */
  async function gateway(config: ServerAdapterConfig = {}): Promise<RunningServer & { virtualKey: string }> {
    governance = await createGovernance({ keys: { store: "memory" }, admin: { keys: [ADMIN_KEY] }, env: {} });
    const server = await start({
      runtime: createRuntime({ env: {} }),
      config: { rateLimit: { enabled: false }, ...config },
      setup: (adapter) => {
        registerAllRoutes(adapter);
        governance?.install(adapter, { virtualKeyAuth: true });
      },
    });
    const post = (path: string, body: unknown, authorization: string) =>
      fetch(server.url(path), {
        method: "POST",
        headers: { "content-type": "application/json", authorization },
        body: JSON.stringify(body),
      });
    await post("/admin/teams", { id: "finance", name: "Finance" }, `Bearer ${ADMIN_KEY}`);
    const created = (await (await post("/admin/keys", { name: "k", team: "finance" }, `Bearer ${ADMIN_KEY}`)).json()) as {
      data: { key: string };
    };
    expect((await post("/api/agent/generate", { input: { text: "hi" } }, `Bearer ${created.data.key}`)).status).toBe(200);
    return Object.assign(server, { virtualKey: created.data.key });
  }

  const scrape = (server: RunningServer, headers: Record<string, string> = {}) => fetch(server.url("/api/metrics"), { headers });
  const governanceSeries = /conduit_governance_(requests|tokens|spend_usd)_total\{team="finance"/;

  it("by default nobody reads them anonymously (401 with WWW-Authenticate), a virtual key or a wrong bearer gets 403", async () => {
    const server = await gateway();
    const anonymous = await scrape(server);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="conduit-metrics"');
    const body = (await anonymous.json()) as { error: { code: string; category: string } };
    expect(body.error.category).toBe("AUTHENTICATION");
    for (const credential of [server.virtualKey, "not-an-admin-key-0123456789", ADMIN_KEY.slice(0, -1)]) {
      const refused = await scrape(server, { authorization: `Bearer ${credential}` });
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toMatch(governanceSeries);
    }
    const json = await scrape(server, { accept: "application/json" });
    expect(json.status).toBe(401);
  });

  it("an admin credential reads everything, the governance series included, as text and JSON", async () => {
    const server = await gateway();
    const text = await scrape(server, { authorization: `Bearer ${ADMIN_KEY}` });
    expect(text.status).toBe(200);
    const exposition = await text.text();
    expect(exposition).toMatch(governanceSeries);
    expect(exposition).toContain("conduit_http_requests_total");
    expect(exposition).not.toContain(server.virtualKey);
    const json = await scrape(server, { authorization: `Bearer ${ADMIN_KEY}`, accept: "application/json" });
    const names = ((await json.json()) as Array<{ name: string }>).map((metric) => metric.name);
    expect(names).toEqual(expect.arrayContaining(["conduit_governance_requests_total", "conduit_http_requests_total"]));
  });

  it("metrics.token (bearer, exact) reads everything; a prefix or a longer value does not", async () => {
    const server = await gateway({ metrics: { token: METRICS_TOKEN } });
    const scraped = await scrape(server, { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(governanceSeries);
    for (const wrong of [METRICS_TOKEN.slice(0, -1), `${METRICS_TOKEN}x`]) {
      expect((await scrape(server, { authorization: `Bearer ${wrong}` })).status).toBe(403);
    }
    expect((await scrape(server)).status).toBe(401);
  });

  it("metrics.public: anyone reads the process and HTTP figures, never the governance series; an admin still reads them", async () => {
    const server = await gateway({ metrics: { public: true } });
    const anonymous = await scrape(server);
    expect(anonymous.status).toBe(200);
    const text = await anonymous.text();
    expect(text).toContain("conduit_http_requests_total");
    expect(text).toContain("process_resident_memory_bytes");
    expect(text).not.toContain("conduit_governance_");
    const json = await scrape(server, { accept: "application/json" });
    const names = ((await json.json()) as Array<{ name: string }>).map((metric) => metric.name);
    expect(names).toContain("conduit_http_requests_total");
    expect(names.filter((name) => name.startsWith("conduit_governance_"))).toEqual([]);
    // A virtual key is no admin: it gets the public view too.
    expect(await (await scrape(server, { authorization: `Bearer ${server.virtualKey}` })).text()).not.toContain("conduit_governance_");
    expect(await (await scrape(server, { authorization: `Bearer ${ADMIN_KEY}` })).text()).toMatch(governanceSeries);
  });

  it("without governance, a server's own admin reads them (a user of its auth with role admin); others are refused", async () => {
    const server = await start({
      config: { rateLimit: { enabled: false } },
      setup: (adapter) => {
        adapter.registerMiddleware({
          name: "test-auth",
          order: 10,
          handler: async (ctx, next) => {
            const roles = ctx.header("x-test-roles");
            if (roles !== undefined) ctx.user = { id: "u", roles: roles.split(","), permissions: [] };
            await next();
          },
        });
      },
    });
    expect((await scrape(server, { "x-test-roles": "admin" })).status).toBe(200);
    expect((await scrape(server, { "x-test-roles": "reader" })).status).toBe(403);
    expect((await scrape(server)).status).toBe(401);
  });
});
