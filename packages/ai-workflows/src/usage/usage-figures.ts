import type { UsageReport } from "@conduit-ai/server-core";
import type { AnalyzeUsageResult } from "../schemas/analyze-usage-schema.js";

const round = (value: number, digits = 6) => Math.round(value * 10 ** digits) / 10 ** digits;

/** `tokenUsage` and `costBreakdown` from a ledger report; `windowMs` scales the monthly projection. */
export function usageFigures(report: UsageReport, windowMs: number): Pick<AnalyzeUsageResult, "tokenUsage" | "costBreakdown"> {
  const total = { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const providers = new Map<string, typeof total & { costUsd: number }>();
  const models = new Map<string, { provider: string; model: string; costUsd: number; tokens: number; pricedCalls: number }>();
  let totalCost = 0;
  let unpricedCalls = 0;
  for (const entry of report.entries) {
    const tokens = entry.inputTokens + entry.outputTokens;
    total.calls += entry.calls;
    total.failedCalls += entry.failedCalls;
    total.inputTokens += entry.inputTokens;
    total.outputTokens += entry.outputTokens;
    total.totalTokens += tokens;
    totalCost += entry.costUsd;
    unpricedCalls += entry.unpricedCalls;
    const provider = providers.get(entry.provider) ?? {
      calls: 0,
      failedCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      costUsd: 0,
    };
    provider.calls += entry.calls;
    provider.failedCalls += entry.failedCalls;
    provider.inputTokens += entry.inputTokens;
    provider.outputTokens += entry.outputTokens;
    provider.totalTokens += tokens;
    provider.costUsd += entry.costUsd;
    providers.set(entry.provider, provider);
    const key = JSON.stringify([entry.provider, entry.model]);
    const model = models.get(key) ?? { provider: entry.provider, model: entry.model, costUsd: 0, tokens: 0, pricedCalls: 0 };
    model.costUsd += entry.costUsd;
    model.tokens += tokens;
    model.pricedCalls += entry.calls - entry.unpricedCalls;
    models.set(key, model);
  }
  const share = (part: number, whole: number) => (whole > 0 ? round(part / whole, 4) : 0);
  return {
    tokenUsage: {
      total,
      byProvider: [...providers].map(([provider, figures]) => {
        const { costUsd: _cost, ...tokens } = figures;
        return { provider, ...tokens, share: share(figures.totalTokens, total.totalTokens) };
      }),
      byModel: report.entries.map((entry) => ({
        provider: entry.provider,
        model: entry.model,
        operation: entry.operation,
        calls: entry.calls,
        failedCalls: entry.failedCalls,
        inputTokens: entry.inputTokens,
        outputTokens: entry.outputTokens,
        totalTokens: entry.inputTokens + entry.outputTokens,
        averageLatencyMs: entry.calls > 0 ? Math.round(entry.latencyMsTotal / entry.calls) : 0,
        maxLatencyMs: entry.latencyMsMax,
      })),
      timeline: report.buckets.map((bucket) => ({ ...bucket, costUsd: round(bucket.costUsd) })),
    },
    costBreakdown: {
      currency: "USD",
      totalUsd: round(totalCost),
      projectedMonthlyUsd: windowMs > 0 ? round((totalCost * 2_592_000_000) / windowMs, 4) : 0,
      unpricedCalls,
      byProvider: [...providers].map(([provider, figures]) => ({
        provider,
        costUsd: round(figures.costUsd),
        share: share(figures.costUsd, totalCost),
      })),
      byModel: [...models.values()].map((model) => ({
        provider: model.provider,
        model: model.model,
        costUsd: round(model.costUsd),
        costPerThousandTokensUsd: model.pricedCalls > 0 && model.tokens > 0 ? round((model.costUsd / model.tokens) * 1000) : null,
      })),
    },
  };
}
