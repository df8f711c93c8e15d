/**
 * Request size limits of the `/api/ai` endpoints (documented in the README). They bound the work
 * one request can ask for; larger input is refused with 400 `VALIDATION_ERROR` naming the field.
 */
export const WORKFLOW_LIMITS = {
  /** `codeFunction`, `sourceCode`, `codeBase` (≈ 8,000 lines). */
  maxCodeCharacters: 300_000,
  /** `aiResponse` as text, or the JSON of a previous step's result. */
  maxAiResponseCharacters: 1_000_000,
  /** `expectedFormat` as a format name or a JSON schema. */
  maxExpectedFormatCharacters: 100_000,
  /** `optimize-parameters` `prompt`. */
  maxPromptCharacters: 50_000,
  /** `benchmark-performance`: prompts, characters per prompt, iterations and prompts × iterations. */
  maxTestPrompts: 20,
  maxTestPromptCharacters: 4_000,
  maxIterations: 20,
  maxBenchmarkRuns: 50,
  /** Provider names in `providers` filters. */
  maxProviders: 20,
} as const;
