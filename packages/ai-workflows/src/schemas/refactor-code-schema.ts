import { z } from "zod";
import { distinctList, impactSchema, providerSelectionShape, resultMetaShape } from "./common.js";
import { PARSED_LANGUAGES, codeField, parseIssueSchema } from "./code-schema.js";

export const REFACTOR_TARGETS = ["readability", "performance", "maintainability", "modern-syntax"] as const;
export const FOCUS_AREAS = [
  "var-declarations",
  "strict-equality",
  "nested-conditionals",
  "long-functions",
  "duplicated-literals",
  "string-concatenation",
] as const;
export type FocusArea = (typeof FOCUS_AREAS)[number];

export const refactorCodeRequestSchema = z.object({
  sourceCode: codeField("JavaScript or TypeScript source to refactor"),
  target: z.enum(REFACTOR_TARGETS).describe("What the refactoring optimizes; orders the improvements"),
  focusAreas: distinctList(z.enum(FOCUS_AREAS), 1, FOCUS_AREAS.length).describe("Patterns to look for"),
  language: z.enum(PARSED_LANGUAGES).optional().describe("Default: detected (TypeScript syntax accepted either way)"),
  ...providerSelectionShape,
});
export type RefactorCodeRequest = z.output<typeof refactorCodeRequestSchema>;

export const improvementSchema = z.object({
  type: z.enum(FOCUS_AREAS),
  description: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  before: z.string(),
  after: z.string(),
  applied: z.boolean().describe("Whether optimizedCode contains the change"),
  impact: impactSchema,
  reason: z.string().optional().describe("Why it was not applied"),
});
export type Improvement = z.infer<typeof improvementSchema>;

export const codeMetricsSchema = z.object({
  lines: z.number().int(),
  functions: z.number().int(),
  cyclomaticComplexity: z.number().int(),
  maxNestingDepth: z.number().int(),
  longestFunctionLines: z.number().int(),
  looseEqualities: z.number().int(),
  varDeclarations: z.number().int(),
  duplicatedLiterals: z.number().int(),
});
export type CodeMetrics = z.infer<typeof codeMetricsSchema>;

export const refactorCodeResultSchema = z.object({
  optimizedCode: z.string(),
  improvements: z.array(improvementSchema),
  performanceGains: z.object({
    metricsBefore: codeMetricsSchema,
    metricsAfter: codeMetricsSchema,
    cyclomaticComplexityChange: z.number().int(),
    maxNestingDepthChange: z.number().int(),
    linesChange: z.number().int(),
    estimatedRuntimeImpact: z.string().describe("What the changes mean at run time, stated honestly"),
  }),
  target: z.enum(REFACTOR_TARGETS),
  parseErrors: z.array(parseIssueSchema),
  ...resultMetaShape,
});
export type RefactorCodeResult = z.output<typeof refactorCodeResultSchema>;
