import { z } from "zod";
import { impactSchema, providerSelectionShape, resultMetaShape } from "./common.js";
import { WORKFLOW_LIMITS } from "./limits.js";

export const TIMEFRAMES = ["1h", "24h", "7d", "30d"] as const;
export const TIMEFRAME_MS: Record<(typeof TIMEFRAMES)[number], number> = {
  "1h": 3_600_000,
  "24h": 86_400_000,
  "7d": 604_800_000,
  "30d": 2_592_000_000,
};

export const analyzeUsageRequestSchema = z.object({
  timeframe: z.enum(TIMEFRAMES).describe("Window of the usage ledger to analyze"),
  providers: z.array(z.string().min(1).max(100)).max(WORKFLOW_LIMITS.maxProviders).describe("Only these providers (empty: all)"),
  includeOptimizations: z.boolean().describe("Add cost and performance recommendations"),
  ...providerSelectionShape,
});
export type AnalyzeUsageRequest = z.output<typeof analyzeUsageRequestSchema>;

const tokenTotals = {
  calls: z.number().int(),
  failedCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
};

export const recommendationSchema = z.object({
  rule: z.string().describe("The rule or source that produced it"),
  title: z.string().min(1).max(200),
  detail: z.string().min(1).max(2000),
  impact: impactSchema,
  estimatedMonthlySavingsUsd: z.number().nullable().describe("When computable from the figures"),
});
export type Recommendation = z.infer<typeof recommendationSchema>;

export const analyzeUsageResultSchema = z.object({
  window: z.object({
    timeframe: z.enum(TIMEFRAMES),
    from: z.string(),
    to: z.string(),
    granularityMs: z.number().int(),
    backend: z.string().describe("memory (this process) or redis (every process sharing it); none without a ledger"),
  }),
  tokenUsage: z.object({
    total: z.object(tokenTotals),
    byProvider: z.array(z.object({ provider: z.string(), ...tokenTotals, share: z.number().describe("Share of all tokens, 0..1") })),
    byModel: z.array(
      z.object({
        provider: z.string(),
        model: z.string(),
        operation: z.enum(["generate", "stream", "embed"]),
        ...tokenTotals,
        averageLatencyMs: z.number(),
        maxLatencyMs: z.number(),
      }),
    ),
    timeline: z.array(
      z.object({
        start: z.string(),
        calls: z.number().int(),
        inputTokens: z.number().int(),
        outputTokens: z.number().int(),
        costUsd: z.number(),
      }),
    ),
  }),
  costBreakdown: z.object({
    currency: z.literal("USD"),
    totalUsd: z.number(),
    projectedMonthlyUsd: z.number().describe("The window's cost scaled to 30 days"),
    unpricedCalls: z.number().int().describe("Calls of models without a price (not in totals)"),
    byProvider: z.array(z.object({ provider: z.string(), costUsd: z.number(), share: z.number() })),
    byModel: z.array(
      z.object({ provider: z.string(), model: z.string(), costUsd: z.number(), costPerThousandTokensUsd: z.number().nullable() }),
    ),
  }),
  recommendations: z.array(recommendationSchema),
  ...resultMetaShape,
});
export type AnalyzeUsageResult = z.output<typeof analyzeUsageResultSchema>;
