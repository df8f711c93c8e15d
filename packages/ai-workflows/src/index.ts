/**
 * @conduit-ai/ai-workflows — the seven `/api/ai` analysis and development-workflow endpoints:
 * real analysis without a model, any runtime provider with zod-validated structured output,
 * and an honest simulated fallback.
 */
export { createAiWorkflowRoutes, registerAiWorkflows } from "./workflow-routes.js";
export { type AiWorkflowOptions, DEFAULT_WORKFLOW_OPTIONS } from "./workflow-options.js";
export { WORKFLOW_LIMITS } from "./schemas/limits.js";
export * from "./schemas/analyze-usage-schema.js";
export * from "./schemas/benchmark-schema.js";
export * from "./schemas/optimize-parameters-schema.js";
export * from "./schemas/generate-test-cases-schema.js";
export * from "./schemas/refactor-code-schema.js";
export * from "./schemas/generate-documentation-schema.js";
export * from "./schemas/debug-ai-output-schema.js";
export { LANGUAGES, type Language } from "./schemas/code-schema.js";
export type { ResultMeta, Severity } from "./schemas/common.js";
