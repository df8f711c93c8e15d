import { z } from "zod";
import { providerSelectionShape, resultMetaShape, severitySchema } from "./common.js";
import { WORKFLOW_LIMITS } from "./limits.js";

export const STYLES = ["creative", "balanced", "precise", "factual"] as const;
export const OPTIMIZATION_GOALS = ["speed", "quality", "cost", "tokens"] as const;

export const optimizeParametersRequestSchema = z.object({
  prompt: z.string().trim().min(1).max(WORKFLOW_LIMITS.maxPromptCharacters).describe("The prompt to tune parameters for"),
  style: z.enum(STYLES),
  optimizeFor: z.enum(OPTIMIZATION_GOALS),
  includeAlternatives: z.boolean().default(false).describe("Add parameter sets for the other goals"),
  ...providerSelectionShape,
});
export type OptimizeParametersRequest = z.output<typeof optimizeParametersRequestSchema>;

export const generationParametersSchema = z.object({
  temperature: z.number().min(0).max(2),
  topP: z.number().min(0).max(1),
  maxTokens: z.number().int().min(1).max(32_000),
  provider: z.string().nullable(),
  model: z.string().nullable().describe("Suggested model among the runtime's; null when none fits"),
});

export const promptFindingSchema = z.object({
  rule: z.string(),
  message: z.string(),
  severity: severitySchema,
  excerpt: z.string().optional(),
  position: z.number().int().optional().describe("Character offset in the prompt"),
});
export type PromptFinding = z.infer<typeof promptFindingSchema>;

export const optimizeParametersResultSchema = z.object({
  optimizedParameters: generationParametersSchema.extend({ reasoning: z.array(z.string()) }),
  optimizedPrompt: z.string(),
  promptAnalysis: z.object({
    wordCount: z.number().int(),
    estimatedTokens: z.number().int(),
    findings: z.array(promptFindingSchema),
  }),
  expectedImprovement: z.object({
    clarityScoreBefore: z.number().describe("0..100 from the prompt rules"),
    clarityScoreAfter: z.number(),
    promptTokensBefore: z.number().int(),
    promptTokensAfter: z.number().int(),
    estimatedOutputTokens: z.number().int(),
    notes: z.array(z.string()),
  }),
  alternatives: z.array(
    z.object({
      optimizeFor: z.enum(OPTIMIZATION_GOALS),
      style: z.enum(STYLES),
      parameters: generationParametersSchema,
      tradeoff: z.string(),
    }),
  ),
  ...resultMetaShape,
});
export type OptimizeParametersResult = z.output<typeof optimizeParametersResultSchema>;
