import { MemoryUsageLedger } from "@conduit-ai/runtime";
import type { ProviderInfo, Runtime, UsageLedgerRecord } from "@conduit-ai/server-core";
import { describe, expect, it } from "vitest";
import { analyzeUsageRequestSchema } from "../schemas/analyze-usage-schema.js";
import { analyzeUsage } from "./analyze-usage.js";

const NOW = Date.UTC(2030, 5, 1, 12);
const providers: ProviderInfo[] = [
  { name: "local", models: ["echo"], available: true, default: false },
  { name: "openai", models: ["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"], available: true, default: true },
];

async function runtimeWith(records: Array<Partial<UsageLedgerRecord>>): Promise<Runtime> {
  const ledger = new MemoryUsageLedger({ now: () => NOW });
  for (const record of records) {
    const call = {
      provider: "openai",
      model: "gpt-4o",
      operation: "generate" as const,
      inputTokens: 1000,
      outputTokens: 100,
      latencyMs: 800,
      timestamp: NOW - 60_000,
      ...record,
    };
    const price = ledger.priceOf(call.provider, call.model);
    await ledger.record({
      costUsd: price ? (call.inputTokens * price.inputPerMillionUsd + call.outputTokens * price.outputPerMillionUsd) / 1e6 : null,
      ...call,
    });
  }
  return { usage: ledger, listProviders: async () => providers } as unknown as Runtime;
}

const request = (body: Record<string, unknown> = {}) =>
  analyzeUsageRequestSchema.parse({ timeframe: "24h", providers: [], includeOptimizations: true, ...body });

describe("analyze-usage", () => {
  it("adds up the ledger's figures over the timeframe and filters by provider", async () => {
    const runtime = await runtimeWith([{}, {}, { provider: "anthropic", model: "claude-haiku-4-5" }, { timestamp: NOW - 3 * 3_600_000 }]);
    const hour = await analyzeUsage(runtime, request({ timeframe: "1h" }), NOW);
    expect(hour.tokenUsage.total).toEqual({ calls: 3, failedCalls: 0, inputTokens: 3000, outputTokens: 300, totalTokens: 3300 });
    expect(hour.costBreakdown.totalUsd).toBeCloseTo((2 * (1000 * 2.5 + 100 * 10)) / 1e6 + (1000 * 1 + 100 * 5) / 1e6, 9);
    expect(hour.costBreakdown.projectedMonthlyUsd).toBeCloseTo(hour.costBreakdown.totalUsd * 720, 4);
    const day = await analyzeUsage(runtime, request({ timeframe: "24h", providers: ["openai"] }), NOW);
    expect(day.tokenUsage.byProvider.map((row) => [row.provider, row.calls])).toEqual([["openai", 3]]);
  });

  it("recommends from rules over the figures, with projected savings", async () => {
    const records: Array<Partial<UsageLedgerRecord>> = [
      ...Array.from({ length: 10 }, () => ({})),
      ...Array.from({ length: 4 }, () => ({ failed: true, inputTokens: 0, outputTokens: 0 })),
      ...Array.from({ length: 3 }, () => ({ model: "gpt-4o-mini", latencyMs: 9_000 })),
      { model: "llama3" },
    ];
    const result = await analyzeUsage(await runtimeWith(records), request({ timeframe: "24h" }), NOW);
    const rules = result.recommendations.map((item) => item.rule);
    expect(rules).toEqual(
      expect.arrayContaining([
        "cheaper-model-for-short-answers",
        "high-failure-rate",
        "slow-generations",
        "input-heavy-prompts",
        "unpriced-models",
      ]),
    );
    const cheaper = result.recommendations.find((item) => item.rule === "cheaper-model-for-short-answers");
    expect(cheaper?.title).toBe("Try gpt-4o-mini instead of gpt-4o for short answers");
    // 14 gpt-4o calls: 10 with 1000/100 tokens; per day $0.035 at gpt-4o prices vs $0.0021 at gpt-4o-mini prices → × 30 days.
    expect(cheaper?.estimatedMonthlySavingsUsd).toBeCloseTo((0.035 - 0.0021) * 30, 3);
    expect(result.recommendations.find((item) => item.rule === "high-failure-rate")?.title).toMatch(/^22% of openai calls failed/);
  });

  it("answers zeros and says so for an empty ledger or a runtime without one", async () => {
    const empty = await analyzeUsage(await runtimeWith([]), request(), NOW);
    expect(empty.tokenUsage.total.calls).toBe(0);
    expect(empty.recommendations).toEqual([
      expect.objectContaining({ rule: "empty-ledger", title: "No AI calls recorded in the last 24h" }),
    ]);
    const none = await analyzeUsage(
      { listProviders: async () => providers } as unknown as Runtime,
      request({ includeOptimizations: false }),
      NOW,
    );
    expect(none.window.backend).toBe("none");
    expect(none.recommendations.map((item) => item.rule)).toEqual(["no-usage-ledger"]);
  });
});
