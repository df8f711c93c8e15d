import { z } from "zod";
import { distinctList, providerSelectionShape, resultMetaShape, severitySchema } from "./common.js";
import { WORKFLOW_LIMITS } from "./limits.js";

export const ISSUE_TYPES = ["format", "logic", "completeness", "type-mismatch"] as const;
export type IssueType = (typeof ISSUE_TYPES)[number];
export const FORMAT_NAMES = ["auto", "json", "yaml", "markdown", "javascript", "typescript", "text"] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
export const ANALYSIS_DEPTHS = ["quick", "detailed", "comprehensive"] as const;

export const debugAiOutputRequestSchema = z.object({
  aiResponse: z
    .union([z.string().max(WORKFLOW_LIMITS.maxAiResponseCharacters), z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .describe("The output to debug: text, or a previous workflow step's whole result envelope (object)"),
  expectedFormat: z
    .union([z.string().max(WORKFLOW_LIMITS.maxExpectedFormatCharacters), z.record(z.string(), z.unknown())])
    .describe(`A format name (${FORMAT_NAMES.join(", ")}) or a JSON Schema (object, or its JSON text) the output must match`),
  issueTypes: distinctList(z.enum(ISSUE_TYPES), 1, ISSUE_TYPES.length),
  analysisDepth: z
    .enum(ANALYSIS_DEPTHS)
    .default("detailed")
    .describe("quick: first error per check; detailed: every check; comprehensive: also every fenced code block"),
  ...providerSelectionShape,
});
export type DebugAiOutputRequest = z.output<typeof debugAiOutputRequestSchema>;

export const debugIssueSchema = z.object({
  type: z.enum(ISSUE_TYPES),
  description: z.string(),
  severity: severitySchema,
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  path: z.string().optional().describe("JSON path of the value, for schema issues"),
  suggestion: z.string().optional(),
  source: z.enum(["analysis", "model"]).optional(),
});
export type DebugIssue = z.infer<typeof debugIssueSchema>;

export const debugAiOutputResultSchema = z.object({
  analysis: z.object({
    analysisDepth: z.enum(ANALYSIS_DEPTHS),
    issuesFound: z.number().int().describe("Exactly issues.length"),
    severityDistribution: z.record(z.string(), z.number().int()),
    issuesByType: z.record(z.string(), z.number().int()),
    detectedFormat: z.string(),
    expectedFormat: z.string().describe("A format name, or json-schema"),
    previousStep: z.object({ workflow: z.string().nullable(), succeeded: z.boolean() }).nullable(),
    omittedIssues: z.number().int().describe("Issues beyond the first 500 (not listed)"),
    checksSkipped: z.array(z.string()),
  }),
  issues: z.array(debugIssueSchema).describe("Grouped by type: format, logic, completeness, type-mismatch; then by line"),
  suggestions: z.array(z.string()),
  recommendations: z.array(z.string()),
  correctedOutput: z.string().optional().describe("A repaired output that parses in the expected format"),
  confidence: z.number().describe("0..1"),
  ...resultMetaShape,
});
export type DebugAiOutputResult = z.output<typeof debugAiOutputResultSchema>;
