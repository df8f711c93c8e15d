import type { Runtime, UsageReport } from "@conduit-ai/server-core";
import { z } from "zod";
import type { ModelStep } from "../provider/run-workflow.js";
import { type AnalyzeUsageRequest, type AnalyzeUsageResult, TIMEFRAME_MS, recommendationSchema } from "../schemas/analyze-usage-schema.js";
import type { ResultMeta } from "../schemas/common.js";
import { usageFigures } from "./usage-figures.js";
import { usageRecommendations } from "./usage-rules.js";

type UsageAnalysis = Omit<AnalyzeUsageResult, keyof ResultMeta>;

/**
 * `analyze-usage` without a model: the runtime's usage ledger over the timeframe, filtered by
 * provider, and recommendations from rules over those figures.
 *
 * @example
 * const result = await analyzeUsage(runtime, { timeframe: "24h", providers: [], includeOptimizations: true });
 * result.tokenUsage.total.calls;
 */
export async function analyzeUsage(runtime: Runtime | undefined, request: AnalyzeUsageRequest, now = Date.now()): Promise<UsageAnalysis> {
  const windowMs = TIMEFRAME_MS[request.timeframe];
  const ledger = runtime?.usage;
  const report: UsageReport = ledger
    ? await ledger.query({ since: now - windowMs, until: now, providers: request.providers })
    : {
        from: new Date(now - windowMs).toISOString(),
        to: new Date(now).toISOString(),
        granularityMs: 0,
        backend: "none",
        entries: [],
        buckets: [],
      };
  const figures = usageFigures(report, windowMs);
  const providers = runtime ? await runtime.listProviders() : [];
  const recommendations = request.includeOptimizations
    ? usageRecommendations({ report, figures, providers, priceOf: ledger?.priceOf?.bind(ledger), windowMs })
    : [];
  if (!ledger) {
    recommendations.unshift({
      rule: "no-usage-ledger",
      title: "This runtime keeps no usage ledger",
      detail:
        "The figures are zero because the runtime records no usage. @conduit-ai/runtime keeps one by default (in Redis when REDIS_URL is set); a custom runtime can implement runtime.usage.",
      impact: "low",
      estimatedMonthlySavingsUsd: null,
    });
  } else if (figures.tokenUsage.total.calls === 0) {
    const filter = request.providers.length > 0 ? ` for ${request.providers.join(", ")}` : "";
    recommendations.unshift({
      rule: "empty-ledger",
      title: `No AI calls recorded in the last ${request.timeframe}${filter}`,
      detail:
        "The usage ledger is empty for this window, so every figure is zero. Make calls through /api/agent (generate, stream, embed) and analyze again, or widen the timeframe.",
      impact: "low",
      estimatedMonthlySavingsUsd: null,
    });
  }
  return {
    window: {
      timeframe: request.timeframe,
      from: report.from,
      to: report.to,
      granularityMs: report.granularityMs,
      backend: report.backend,
    },
    ...figures,
    recommendations,
  };
}

const modelOutputSchema = z.object({
  recommendations: z
    .array(recommendationSchema.omit({ rule: true }))
    .min(1)
    .max(10),
});

/** The AI path: the model writes the recommendations; the figures stay the ledger's. */
export function usageModelStep(simulated: UsageAnalysis): ModelStep<UsageAnalysis, z.infer<typeof modelOutputSchema>> | undefined {
  if (simulated.tokenUsage.total.calls === 0) return undefined;
  const facts = {
    window: simulated.window,
    tokenUsage: { ...simulated.tokenUsage, timeline: simulated.tokenUsage.timeline.slice(-48) },
    costBreakdown: simulated.costBreakdown,
    ruleFindings: simulated.recommendations,
  };
  return {
    instructions:
      "Given the usage figures of an AI service, write concrete recommendations to lower cost and latency and raise reliability. Base every claim on the figures given; estimate monthly savings in USD only when the figures allow it (else null).",
    prompt: `Usage figures (JSON):\n${JSON.stringify(facts)}`,
    schema: modelOutputSchema,
    merge: (analysis, output) => ({ ...analysis, recommendations: output.recommendations.map((item) => ({ rule: "model", ...item })) }),
  };
}
