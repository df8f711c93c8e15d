import { randomBytes } from "node:crypto";
import {
  type FakeAdminReports,
  type FakeAnthropic,
  billedAnthropicExchange,
  startFakeAdminReports,
  startFakeAnthropic,
} from "@conduit-ai/fakes";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConduitInProcess } from "../test-support/run-in-process.js";
import { killLeftovers, portOf, spawnConduit, writeConfig } from "../test-support/spawn-conduit.js";

// `conduit reconcile` end to end: traffic through `conduit proxy` (JSON and streamed /v1/messages
// on a virtual key) lands in the PostgreSQL usage history; the fake Admin API bills what the fake
// Anthropic answered. Zero drift for that traffic; the exact drift for a call made behind Conduit's back.

const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ADMIN_KEY = `admin-${randomBytes(24).toString("hex")}`;
const VENDOR_ADMIN_KEY = "sk-ant-admin01-cli-reconcile";
const ACCOUNT_KEY = "sk-ant-reconcile-account";
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

let anthropic: FakeAnthropic;
let reports: FakeAdminReports;
let database: string;
let databaseUrl: string;
let config: string;
let url: string;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  anthropic = await startFakeAnthropic();
  anthropic.credentials.add(ACCOUNT_KEY);
  reports = await startFakeAdminReports({ vendor: "anthropic", adminKey: VENDOR_ADMIN_KEY });
  reports.rateLimitEvery = 2;
  database = `conduit_cli_reconcile_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const target = new URL(baseUrl);
  target.pathname = `/${database}`;
  databaseUrl = target.toString();
  config = writeConfig({
    proxy: { enabled: true, upstream: { anthropic: anthropic.url }, accounts: [{ id: "claude-1", type: "api-key", apiKey: ACCOUNT_KEY }] },
    keys: {},
    admin: { keys: [ADMIN_KEY] },
    prices: { [MODEL]: PRICE },
    providers: {
      anthropic: { type: "anthropic", apiKeys: [ACCOUNT_KEY], baseURL: `${reports.url}/v1`, adminKey: "env:ANTHROPIC_ADMIN_KEY" },
    },
  });
  const proxy = spawnConduit(
    ["proxy", "--config", config, "--port", "0", "--host", "127.0.0.1"],
    { DATABASE_URL: databaseUrl, ANTHROPIC_ADMIN_KEY: VENDOR_ADMIN_KEY },
    "Conduit proxy listening on ",
  );
  url = `http://127.0.0.1:${portOf(await proxy.ready)}`;
}, 60_000);

afterAll(async () => {
  killLeftovers();
  await anthropic?.close();
  await reports?.close();
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
});

async function adminCall(path: string, init: RequestInit = {}) {
  const response = await fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
  });
  return (await response.json()) as { data: unknown };
}

const reconcileCli = (extra: string[] = []) =>
  runConduitInProcess(["reconcile", "--provider", "anthropic", "--from", today, "--to", today, "--config", config, ...extra], {
    DATABASE_URL: databaseUrl,
    ANTHROPIC_ADMIN_KEY: VENDOR_ADMIN_KEY,
  });

describe("conduit reconcile against the fake Admin API", { timeout: 120_000 }, () => {
  it("zero drift for traffic through Conduit; the exact drift for a call behind its back", async () => {
    const key = ((await adminCall("/admin/keys", { method: "POST", body: JSON.stringify({ name: "reconcile" }) })).data as { key: string })
      .key;
    for (const stream of [false, true, false]) {
      const response = await fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: MODEL, max_tokens: 32, stream, messages: [{ role: "user", content: "Say hello" }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
    }
    // The usage history is written off the request path: wait for the three calls.
    for (let waited = 0; waited < 100; waited++) {
      const rows = (await adminCall("/admin/usage?groupBy=day")).data as Array<{ requests: number }>;
      if (rows.reduce((sum, row) => sum + row.requests, 0) >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The vendor bills what it answered.
    for (const exchange of anthropic.exchanges) {
      const billed = billedAnthropicExchange(exchange, { time: new Date().toISOString(), apiKeyId: "apikey_conduit", price: priceOf });
      if (billed) reports.bill(billed);
    }
    expect(reports.ledger).toHaveLength(3);

    const clean = await reconcileCli(["--json"]);
    expect(clean.stderr).toBe("");
    expect(clean.code).toBe(0);
    const report = JSON.parse(clean.stdout) as {
      rows: Array<{ model: string; status: string; conduit: { requests: number }; drift: { tokens: number; usd: number } }>;
      totals: { driftingRows: number; conduitUsd: number; vendorUsd: number };
    };
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({ model: MODEL, status: "match", conduit: { requests: 3 }, drift: { tokens: 0, usd: 0 } });
    expect(report.totals.conduitUsd).toBeGreaterThan(0);
    expect(Math.abs(report.totals.vendorUsd - report.totals.conduitUsd)).toBeLessThan(1e-9);
    expect(reports.rateLimited).toBeGreaterThan(0);

    // A call straight to the vendor, with another key: Conduit never saw it.
    reports.bill({
      time: new Date().toISOString(),
      model: MODEL,
      apiKeyId: "apikey_elsewhere",
      input: 1000,
      output: 200,
      usd: priceOf(MODEL, { input: 1000, output: 200 }),
    });
    const drifting = await reconcileCli(["--json"]);
    expect(drifting.code).toBe(1);
    const after = JSON.parse(drifting.stdout) as typeof report & { rows: Array<{ drift: { inputTokens: number; outputTokens: number } }> };
    expect(after.rows[0]).toMatchObject({ status: "drift", drift: { inputTokens: 1000, outputTokens: 200, tokens: 1200 } });
    expect(after.rows[0]?.drift.usd).toBeCloseTo(0.006, 12);
    expect(after.totals.driftingRows).toBe(1);

    const table = await reconcileCli();
    expect(table.code).toBe(1);
    expect(table.stdout).toContain(`${today}  ${MODEL}`);
    expect(table.stdout).toContain("+1,200");
    expect(table.stdout).toContain("+$0.006000");
    expect(table.stdout).toContain("anthropic: 1 row(s) drift");
    expect(`${table.stdout}${table.stderr}`).not.toContain(VENDOR_ADMIN_KEY);
  });

  it("usage mistakes exit 2 with the usage line", async () => {
    const missing = await runConduitInProcess(["reconcile", "--provider", "anthropic"], { DATABASE_URL: databaseUrl });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--provider, --from, --to and --config are required");
    const unknown = await runConduitInProcess(["reconcile", "--provider", "nope", "--from", today, "--to", today, "--config", config], {
      DATABASE_URL: databaseUrl,
      ANTHROPIC_ADMIN_KEY: VENDOR_ADMIN_KEY,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No provider "nope" with an adminKey');
    const backwards = await runConduitInProcess(
      ["reconcile", "--provider", "anthropic", "--from", "2026-12-02", "--to", "2026-12-01", "--config", config],
      {
        DATABASE_URL: databaseUrl,
        ANTHROPIC_ADMIN_KEY: VENDOR_ADMIN_KEY,
      },
    );
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toContain("from must not be after to");
  });
});
