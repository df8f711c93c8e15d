/**
 * @conduit-ai/ai-workflows — the seven `/api/ai` analysis and development-workflow endpoints:
 * real analysis without a model, any runtime provider with zod-validated structured output,
 * and an honest simulated fallback.
 */
export { createAiWorkflowRoutes, registerAiWorkflows } from "./workflow-routes.js";
export { type AiWorkflowOptions, DEFAULT_WORKFLOW_OPTIONS } from "./workflow-options.js";
export { parseAiWorkflowsConfig } from "./workflow-config-schema.js";
export { WORKFLOW_LIMITS } from "./schemas/limits.js";
export {
  TIMEFRAMES,
  TIMEFRAME_MS,
  analyzeUsageRequestSchema,
  analyzeUsageResultSchema,
  recommendationSchema,
} from "./schemas/analyze-usage-schema.js";
export type { AnalyzeUsageRequest, AnalyzeUsageResult, Recommendation } from "./schemas/analyze-usage-schema.js";
export { benchmarkRequestSchema, benchmarkResultSchema } from "./schemas/benchmark-schema.js";
export type { BenchmarkRequest, BenchmarkResult } from "./schemas/benchmark-schema.js";
export {
  OPTIMIZATION_GOALS,
  STYLES,
  generationParametersSchema,
  optimizeParametersRequestSchema,
  optimizeParametersResultSchema,
  promptFindingSchema,
} from "./schemas/optimize-parameters-schema.js";
export type { OptimizeParametersRequest, OptimizeParametersResult, PromptFinding } from "./schemas/optimize-parameters-schema.js";
export {
  TEST_FRAMEWORKS,
  TEST_TYPES,
  generateTestCasesRequestSchema,
  generateTestCasesResultSchema,
  testCaseSchema,
} from "./schemas/generate-test-cases-schema.js";
export type {
  GenerateTestCasesRequest,
  GenerateTestCasesResult,
  TestCase,
  TestFramework,
  TestType,
} from "./schemas/generate-test-cases-schema.js";
export {
  FOCUS_AREAS,
  REFACTOR_TARGETS,
  codeMetricsSchema,
  improvementSchema,
  refactorCodeRequestSchema,
  refactorCodeResultSchema,
} from "./schemas/refactor-code-schema.js";
export type { CodeMetrics, FocusArea, Improvement, RefactorCodeRequest, RefactorCodeResult } from "./schemas/refactor-code-schema.js";
export {
  OUTPUT_FORMATS,
  apiEntrySchema,
  generateDocumentationRequestSchema,
  generateDocumentationResultSchema,
} from "./schemas/generate-documentation-schema.js";
export type {
  ApiEntry,
  GenerateDocumentationRequest,
  GenerateDocumentationResult,
  OutputFormat,
} from "./schemas/generate-documentation-schema.js";
export {
  ANALYSIS_DEPTHS,
  FORMAT_NAMES,
  ISSUE_TYPES,
  debugAiOutputRequestSchema,
  debugAiOutputResultSchema,
  debugIssueSchema,
} from "./schemas/debug-ai-output-schema.js";
export type { DebugAiOutputRequest, DebugAiOutputResult, DebugIssue, FormatName, IssueType } from "./schemas/debug-ai-output-schema.js";
export { LANGUAGES, type Language } from "./schemas/code-schema.js";
export type { ResultMeta, Severity } from "./schemas/common.js";
