import { z } from "zod";
import { providerSelectionShape, resultMetaShape } from "./common.js";
import { WORKFLOW_LIMITS } from "./limits.js";

export const benchmarkRequestSchema = z
  .object({
    iterations: z.number().int().min(1).max(WORKFLOW_LIMITS.maxIterations).describe("Runs of every prompt per provider"),
    testPrompts: z
      .array(z.string().trim().min(1).max(WORKFLOW_LIMITS.maxTestPromptCharacters))
      .min(1)
      .max(WORKFLOW_LIMITS.maxTestPrompts)
      .describe(`Prompts to run; iterations × prompts ≤ ${WORKFLOW_LIMITS.maxBenchmarkRuns}`),
    includeQualityMetrics: z.boolean().describe("Score answers for length, instruction keywords and format adherence"),
    providers: z
      .array(z.string().min(1).max(100))
      .max(WORKFLOW_LIMITS.maxProviders)
      .optional()
      .describe("Providers to run (default: every available one, local included)"),
    maxTokens: z.number().int().min(1).max(4096).default(256).describe("Output token limit per run"),
    ...providerSelectionShape,
  })
  .refine((body) => body.iterations * body.testPrompts.length <= WORKFLOW_LIMITS.maxBenchmarkRuns, {
    message: `iterations × testPrompts.length must be at most ${WORKFLOW_LIMITS.maxBenchmarkRuns} per provider`,
    path: ["iterations"],
    when: (payload) => {
      const value = payload.value as { iterations?: unknown; testPrompts?: unknown };
      return typeof value?.iterations === "number" && Array.isArray(value.testPrompts);
    },
  });
export type BenchmarkRequest = z.output<typeof benchmarkRequestSchema>;

const latencySummary = z.object({ min: z.number(), mean: z.number(), p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() });

export const benchmarkResultSchema = z.object({
  latencyResults: z.array(
    z.object({
      provider: z.string(),
      model: z.string(),
      runs: z.number().int(),
      failures: z.number().int(),
      latencyMs: latencySummary.nullable().describe("Null when no run succeeded"),
      outputTokensPerSecond: z.number().nullable(),
      totalInputTokens: z.number().int(),
      totalOutputTokens: z.number().int(),
      errors: z.array(z.string()).describe("Distinct error messages (at most 5)"),
    }),
  ),
  qualityScores: z.array(
    z.object({
      provider: z.string(),
      model: z.string(),
      overall: z.number().describe("0..1, mean of the three scores"),
      length: z.number(),
      instructionKeywords: z.number(),
      formatAdherence: z.number(),
      perPrompt: z.array(
        z.object({
          promptIndex: z.number().int(),
          overall: z.number(),
          length: z.number(),
          instructionKeywords: z.number(),
          formatAdherence: z.number(),
          expectedFormat: z.string(),
        }),
      ),
    }),
  ),
  costEfficiency: z.array(
    z.object({
      provider: z.string(),
      model: z.string(),
      priced: z.boolean(),
      totalCostUsd: z.number().nullable(),
      costPerThousandOutputTokensUsd: z.number().nullable(),
      qualityPerDollar: z.number().nullable().describe("Mean quality per USD; null when free or unpriced"),
    }),
  ),
  summary: z.object({
    runsPlanned: z.number().int(),
    runsCompleted: z.number().int(),
    budgetExhausted: z.boolean().describe("The time budget ended the benchmark before every run"),
    fastest: z.string().nullable(),
    bestQuality: z.string().nullable(),
    mostCostEfficient: z.string().nullable(),
  }),
  ...resultMetaShape,
});
export type BenchmarkResult = z.output<typeof benchmarkResultSchema>;
