import { type RouteGroup, type Runtime, type ServerAdapter, defineRoute } from "@conduit-ai/server-core";
import { runBenchmark } from "./benchmark/run-benchmark.js";
import { debugModelStep } from "./debug/debug-model-step.js";
import { debugAiOutput } from "./debug/debug-ai-output.js";
import { resolveExpectedFormat } from "./debug/expected-format.js";
import { documentationModelStep, generateDocumentation } from "./docs/generate-documentation.js";
import { optimizeModelStep, optimizeParameters } from "./parameters/optimize-parameters.js";
import { type ProviderPathSettings, runWorkflow, traceWorkflow } from "./provider/run-workflow.js";
import { refactorCode, refactorModelStep } from "./refactor/refactor-code.js";
import { analyzeUsageRequestSchema, analyzeUsageResultSchema } from "./schemas/analyze-usage-schema.js";
import { benchmarkRequestSchema, benchmarkResultSchema } from "./schemas/benchmark-schema.js";
import { debugAiOutputRequestSchema, debugAiOutputResultSchema } from "./schemas/debug-ai-output-schema.js";
import { generateDocumentationRequestSchema, generateDocumentationResultSchema } from "./schemas/generate-documentation-schema.js";
import { generateTestCasesRequestSchema, generateTestCasesResultSchema } from "./schemas/generate-test-cases-schema.js";
import { optimizeParametersRequestSchema, optimizeParametersResultSchema } from "./schemas/optimize-parameters-schema.js";
import { refactorCodeRequestSchema, refactorCodeResultSchema } from "./schemas/refactor-code-schema.js";
import { analyzeUsage, usageModelStep } from "./usage/analyze-usage.js";
import { generateTestCases, testCasesModelStep } from "./tests/generate-test-cases.js";
import { type AiWorkflowOptions, DEFAULT_WORKFLOW_OPTIONS } from "./workflow-options.js";

const PROVIDER_NOTE =
  " With a provider other than `local` (the runtime's default, or `provider`/`model`), a model improves the result through zod-validated structured output with one repair attempt; an invalid answer, a provider error or a timeout falls back to the simulated result with `fallbackReason`.";

/**
 * The seven `/api/ai` workflow endpoints (POST, JSON) over a runtime. Each answers with its
 * deterministic analysis when no provider besides `local` is available, and lets a model improve
 * it otherwise; results carry `simulated`, `provider`, `model` and, after a fallback, `fallbackReason`.
 *
 * @example
 * const server = await createServer(runtime);
 * server.registerRouteGroup(createAiWorkflowRoutes(runtime));
 * // POST /api/ai/debug-ai-output {"aiResponse": "{\"a\": 1,}", "expectedFormat": "json"}
 */
export function createAiWorkflowRoutes(runtime: Runtime | undefined, options: AiWorkflowOptions = {}): RouteGroup {
  const settings = { ...DEFAULT_WORKFLOW_OPTIONS, ...options };
  const path: ProviderPathSettings = {
    timeoutMs: settings.providerTimeoutMs,
    maxOutputTokens: settings.maxOutputTokens,
    maxPromptCharacters: settings.maxPromptCharacters,
  };
  const route = (name: string) => `${settings.prefix.replace(/\/+$/, "")}/${name}`;
  return {
    prefix: settings.prefix,
    tags: ["ai"],
    routes: [
      defineRoute({
        method: "POST",
        path: route("analyze-usage"),
        absolute: true,
        summary: "Analyze AI usage: tokens, cost and recommendations from the usage ledger",
        description: `Figures come from the runtime's usage ledger (every generate, stream and embed call) over \`timeframe\` (1h, 24h, 7d, 30d), filtered by \`providers\`; recommendations from rules over those figures.${PROVIDER_NOTE}`,
        schema: { body: analyzeUsageRequestSchema, response: analyzeUsageResultSchema },
        handler: (ctx) => runWorkflow("analyze-usage", runtime, ctx.body, ctx, path, () => analyzeUsage(runtime, ctx.body), usageModelStep),
      }),
      defineRoute({
        method: "POST",
        path: route("benchmark-performance"),
        absolute: true,
        summary: "Benchmark the providers: latency percentiles, tokens/s, quality and cost efficiency",
        description:
          "Runs every test prompt `iterations` times against each available provider (local included); iterations × prompts ≤ 50. Latency p50/p95/p99, output tokens per second, quality scores (length, instruction keywords, format adherence) and quality per dollar. `simulated` is true when only the offline local provider ran.",
        schema: { body: benchmarkRequestSchema, response: benchmarkResultSchema },
        handler: (ctx) =>
          traceWorkflow("benchmark-performance", ctx, (call) =>
            runBenchmark(runtime, ctx.body, call, { callTimeoutMs: settings.benchmarkCallTimeoutMs, budgetMs: settings.benchmarkBudgetMs }),
          ),
      }),
      defineRoute({
        method: "POST",
        path: route("optimize-parameters"),
        absolute: true,
        summary: "Suggest temperature, topP, maxTokens and a model for a prompt, and rewrite the prompt",
        description: `style: creative, balanced, precise, factual; optimizeFor: speed, quality, cost, tokens. The prompt is rewritten by measurable rules (length, output format, ambiguity, structure).${PROVIDER_NOTE}`,
        schema: { body: optimizeParametersRequestSchema, response: optimizeParametersResultSchema },
        handler: (ctx) =>
          runWorkflow(
            "optimize-parameters",
            runtime,
            ctx.body,
            ctx,
            path,
            () => optimizeParameters(runtime, ctx.body),
            optimizeModelStep(ctx.body),
          ),
      }),
      defineRoute({
        method: "POST",
        path: route("generate-test-cases"),
        absolute: true,
        summary: "Generate tests for real functions of the code, in the chosen framework",
        description: `JavaScript/TypeScript is parsed with @babel/parser (jest, mocha, vitest, node-test); Python (pytest, unittest), Ruby (rspec) and Go (go-test) are read by a signature scanner. testTypes: unit, integration, edge-cases, performance, security.${PROVIDER_NOTE}`,
        schema: { body: generateTestCasesRequestSchema, response: generateTestCasesResultSchema },
        handler: (ctx) =>
          runWorkflow("generate-test-cases", runtime, ctx.body, ctx, path, () => generateTestCases(ctx.body), testCasesModelStep(ctx.body)),
      }),
      defineRoute({
        method: "POST",
        path: route("refactor-code"),
        absolute: true,
        summary: "Refactor JavaScript/TypeScript: detected patterns, safe rewrites, metrics before and after",
        description: `target: readability, performance, maintainability, modern-syntax; focusAreas: var-declarations, strict-equality, nested-conditionals, long-functions, duplicated-literals, string-concatenation. optimizedCode always parses.${PROVIDER_NOTE}`,
        schema: { body: refactorCodeRequestSchema, response: refactorCodeResultSchema },
        handler: (ctx) =>
          runWorkflow("refactor-code", runtime, ctx.body, ctx, path, () => refactorCode(ctx.body), refactorModelStep(ctx.body)),
      }),
      defineRoute({
        method: "POST",
        path: route("generate-documentation"),
        absolute: true,
        summary: "Document JavaScript/TypeScript from its real signatures and comments",
        description: `outputFormat: markdown, jsdoc (the code with JSDoc added; still parses), html, json.${PROVIDER_NOTE}`,
        schema: { body: generateDocumentationRequestSchema, response: generateDocumentationResultSchema },
        handler: async (ctx) => {
          const { anchors: _anchors, ...result } = await runWorkflow(
            "generate-documentation",
            runtime,
            ctx.body,
            ctx,
            path,
            () => generateDocumentation(ctx.body),
            documentationModelStep(ctx.body),
          );
          return result;
        },
      }),
      defineRoute({
        method: "POST",
        path: route("debug-ai-output"),
        absolute: true,
        summary: "Debug an AI output: located format errors, schema checks, grouped issues, a repaired output",
        description: `expectedFormat: auto, json, yaml, markdown, javascript, typescript, text, or a JSON Schema. issueTypes: format, logic, completeness, type-mismatch. aiResponse may be a previous step's whole result envelope.${PROVIDER_NOTE}`,
        schema: { body: debugAiOutputRequestSchema, response: debugAiOutputResultSchema },
        handler: (ctx) => {
          const expected = resolveExpectedFormat(ctx.body.expectedFormat);
          return runWorkflow(
            "debug-ai-output",
            runtime,
            ctx.body,
            ctx,
            path,
            () => debugAiOutput(ctx.body, expected),
            debugModelStep(ctx.body, expected),
          );
        },
      }),
    ],
  };
}

/**
 * Registers the `/api/ai` group on an adapter, over the adapter's runtime.
 *
 * @example
 * const server = await createServer(createRuntime());
 * registerAllRoutes(server);
 * registerAiWorkflows(server);
 */
export function registerAiWorkflows(
  adapter: ServerAdapter & { readonly runtime?: Runtime | undefined },
  options: AiWorkflowOptions = {},
): RouteGroup {
  const group = createAiWorkflowRoutes(adapter.runtime, options);
  adapter.registerRouteGroup(group);
  return group;
}
