import { type FakeAdminReports, startFakeAdminReports } from "@conduit-ai/fakes";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryUsageSink } from "../usage/memory-usage-sink.js";
import type { UsageEvent } from "../usage/usage-event.js";
import { reconcile } from "./reconcile.js";
import type { ReconcileProvider } from "./vendor-report.js";

const ADMIN_KEY = "sk-ant-admin01-reconcile-test-key";
const fakes: FakeAdminReports[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

/** $3 in, $15 out, $0.30 cache reads, $3.75 cache writes per million (what both sides charge here). */
const usdOf = (input: number, output: number, cacheRead = 0, cacheWrite = 0) =>
  (input * 3 + output * 15 + cacheRead * 0.3 + cacheWrite * 3.75) / 1e6;

let sequence = 0;
function conduitEvent(time: string, target: string, input: number, output: number, cacheRead = 0, cacheWrite = 0): UsageEvent {
  const model = target.split("/").at(-1) as string;
  return {
    id: `event-${sequence++}`,
    time,
    key: "key_1",
    model,
    target,
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    costUsd: usdOf(input, output, cacheRead, cacheWrite),
    status: 200,
    latencyMs: 5,
  };
}

async function vendorFake(vendor: "anthropic" | "openai"): Promise<FakeAdminReports> {
  const fake = await startFakeAdminReports({ vendor, adminKey: ADMIN_KEY });
  fakes.push(fake);
  // Pages of two days and a 429 every third request: the client must follow and wait.
  fake.maxBucketsPerPage = 2;
  fake.rateLimitEvery = 3;
  return fake;
}

/** The same calls on both sides: Conduit's history and the vendor's ledger. */
function seen(
  sink: MemoryUsageSink,
  fake: FakeAdminReports,
  provider: string,
  calls: Array<[string, string, number, number, number?, number?]>,
) {
  for (const [time, model, input, output, cacheRead = 0, cacheWrite = 0] of calls) {
    sink.append(conduitEvent(time, `${provider}/${model}`, input, output, cacheRead, cacheWrite));
    fake.bill({
      time,
      model,
      apiKeyId: "apikey_a",
      input,
      output,
      cacheRead,
      cacheWrite5m: cacheWrite,
      usd: usdOf(input, output, cacheRead, cacheWrite),
    });
  }
}

describe.each(["anthropic", "openai"] as const)("reconcile against %s's admin reports", (vendor) => {
  const provider = (fake: FakeAdminReports): ReconcileProvider => ({
    name: vendor,
    vendor,
    adminKey: ADMIN_KEY,
    baseURL: `${fake.url}/v1`,
  });
  const calls: Array<[string, string, number, number, number?, number?]> = [
    ["2026-11-01T09:00:00Z", "model-a", 1200, 300, 500, vendor === "anthropic" ? 100 : 0],
    ["2026-11-01T23:59:59Z", "model-b", 10, 5],
    ["2026-11-03T12:00:00Z", "model-a", 700, 20, 40],
    ["2026-11-05T00:00:00Z", "model-a", 1, 1],
  ];

  it("zero drift for the same traffic, through pages and 429s", async () => {
    const fake = await vendorFake(vendor);
    const sink = new MemoryUsageSink();
    seen(sink, fake, vendor, calls);
    // Another provider's traffic is not this vendor's.
    sink.append(conduitEvent("2026-11-01T10:00:00Z", "runtime/other/model-a", 99, 99));
    const report = await reconcile(provider(fake), { from: "2026-11-01", to: "2026-11-05" }, (range) => sink.dailyUsage(range), {
      baseRetryWaitMs: 10,
    });
    expect(report.rows.map((row) => [row.day, row.model, row.status])).toEqual([
      ["2026-11-01", "model-a", "match"],
      ["2026-11-01", "model-b", "match"],
      ["2026-11-03", "model-a", "match"],
      ["2026-11-05", "model-a", "match"],
    ]);
    expect(report.totals.driftTokens).toBe(0);
    expect(report.totals.driftUsd).toBe(0);
    expect(report.totals.vendorUsd).toBeCloseTo(report.totals.conduitUsd, 12);
    expect(report.rows[0]?.vendor?.apiKeys).toEqual([
      { id: "apikey_a", inputTokens: 1200 + 500 + (vendor === "anthropic" ? 100 : 0), outputTokens: 300 },
    ]);
    // Five days, two a page: three pages per report, two reports, and the 429s were retried.
    expect(fake.rateLimited).toBeGreaterThan(0);
    const pages = fake.requests.filter((request) => request.path.includes("page="));
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(fake.requests.every((request) => !request.path.includes(ADMIN_KEY))).toBe(true);
  }, 30_000);

  it("the exact drift for traffic behind Conduit's back, and a day the vendor never reported", async () => {
    const fake = await vendorFake(vendor);
    fake.rateLimitEvery = 0;
    const sink = new MemoryUsageSink();
    seen(sink, fake, vendor, calls);
    // Behind Conduit's back: a call straight to the vendor.
    fake.bill({ time: "2026-11-03T13:00:00Z", model: "model-a", input: 1000, output: 100, usd: usdOf(1000, 100) });
    fake.bill({ time: "2026-11-04T13:00:00Z", model: "model-c", input: 50, output: 50, usd: usdOf(50, 50) });
    // Conduit saw traffic the vendor did not report.
    sink.append(conduitEvent("2026-11-02T08:00:00Z", `${vendor}/model-b`, 40, 2));
    const report = await reconcile(provider(fake), { from: "2026-11-01", to: "2026-11-05" }, (range) => sink.dailyUsage(range));
    const byKey = new Map(report.rows.map((row) => [`${row.day} ${row.model}`, row]));
    expect(byKey.get("2026-11-03 model-a")).toMatchObject({
      status: "drift",
      drift: { inputTokens: 1000, outputTokens: 100, tokens: 1100 },
    });
    expect(byKey.get("2026-11-03 model-a")?.drift.usd).toBeCloseTo(usdOf(1000, 100), 12);
    expect(byKey.get("2026-11-04 model-c")).toMatchObject({ status: "unseen-by-conduit", drift: { tokens: 100 } });
    expect(byKey.get("2026-11-02 model-b")).toMatchObject({ status: "missing-at-vendor", vendor: null, drift: { tokens: -42 } });
    expect(byKey.get("2026-11-02 model-b")?.drift.usd).toBeCloseTo(-usdOf(40, 2), 12);
    expect(report.totals.driftingRows).toBe(3);
    expect(report.totals.driftTokens).toBe(1100 + 100 - 42);
    expect(byKey.get("2026-11-01 model-a")?.status).toBe("match");
  });

  it("a refused admin key is a 502 naming the vendor's status, never the key", async () => {
    const fake = await vendorFake(vendor);
    const sink = new MemoryUsageSink();
    const failure = await reconcile(
      { ...provider(fake), adminKey: "sk-ant-admin01-wrong" },
      { from: "2026-11-01", to: "2026-11-01" },
      (range) => sink.dailyUsage(range),
    ).then(
      () => undefined,
      (error: unknown) => error as { statusCode: number; code: string; message: string; details: unknown },
    );
    expect(failure).toMatchObject({ statusCode: 502, code: "VENDOR_REPORT_FAILED", details: { provider: vendor, vendorStatus: 401 } });
    expect(JSON.stringify(failure)).not.toContain("wrong");
    expect(failure?.message).not.toContain("wrong");
  });
});
