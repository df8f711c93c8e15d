/** Options of `createAiWorkflowRoutes` / `registerAiWorkflows`. */
export interface AiWorkflowOptions {
  /** Both attempts of the AI path (first try and repair) together; then the simulated result (default 20 000 ms). */
  providerTimeoutMs?: number;
  /** Output token limit of AI-path calls (default 4096). */
  maxOutputTokens?: number;
  /** Prompts longer than this are not sent to a provider; the simulated result answers (default 120 000 characters). */
  maxPromptCharacters?: number;
  /** `benchmark-performance`: one run may take this long (default 15 000 ms). */
  benchmarkCallTimeoutMs?: number;
  /** `benchmark-performance`: no new run starts after this (default 25 000 ms). */
  benchmarkBudgetMs?: number;
  /** Mount point (default `/api/ai`, absolute: outside `basePath`). */
  prefix?: string;
}

export const DEFAULT_WORKFLOW_OPTIONS: Required<AiWorkflowOptions> = {
  providerTimeoutMs: 20_000,
  maxOutputTokens: 4_096,
  maxPromptCharacters: 120_000,
  benchmarkCallTimeoutMs: 15_000,
  benchmarkBudgetMs: 25_000,
  prefix: "/api/ai",
};
