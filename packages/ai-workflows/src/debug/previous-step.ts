import type { z } from "zod";
import { parsesCleanly } from "../code/parse-code.js";
import { analyzeUsageResultSchema } from "../schemas/analyze-usage-schema.js";
import { benchmarkResultSchema } from "../schemas/benchmark-schema.js";
import { debugAiOutputResultSchema } from "../schemas/debug-ai-output-schema.js";
import { generateDocumentationResultSchema } from "../schemas/generate-documentation-schema.js";
import { generateTestCasesResultSchema } from "../schemas/generate-test-cases-schema.js";
import { optimizeParametersResultSchema } from "../schemas/optimize-parameters-schema.js";
import { refactorCodeResultSchema } from "../schemas/refactor-code-schema.js";
import { presentAt } from "./check-schema.js";
import type { IssueList } from "./issue-list.js";

/** Each workflow's result, recognized by a field only it has. */
const WORKFLOWS: Array<{ name: string; key: string; schema: z.ZodType }> = [
  { name: "analyze-usage", key: "costBreakdown", schema: analyzeUsageResultSchema },
  { name: "benchmark-performance", key: "latencyResults", schema: benchmarkResultSchema },
  { name: "optimize-parameters", key: "optimizedParameters", schema: optimizeParametersResultSchema },
  { name: "generate-test-cases", key: "unitTests", schema: generateTestCasesResultSchema },
  { name: "refactor-code", key: "optimizedCode", schema: refactorCodeResultSchema },
  { name: "generate-documentation", key: "apiReference", schema: generateDocumentationResultSchema },
  { name: "debug-ai-output", key: "correctedOutput", schema: debugAiOutputResultSchema },
  { name: "debug-ai-output", key: "severityDistribution", schema: debugAiOutputResultSchema },
];

const JS_FRAMEWORKS = new Set(["jest", "mocha", "vitest", "node-test"]);

function envelopeOf(input: unknown): Record<string, unknown> | undefined {
  let value = input;
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (!trimmed.startsWith("{") || trimmed.length > 2_000_000) return undefined;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return "data" in record || ("error" in record && typeof record.error === "object") ? record : undefined;
}

/**
 * When `aiResponse` is a previous step's envelope (`{data, metadata}` or `{error}`), checks it
 * as such: the step's own result schema, the code it produced still parsing, its failure or
 * fallback. Returns undefined for any other output.
 */
export function checkPreviousStep(input: unknown, issues: IssueList): { workflow: string | null; succeeded: boolean } | undefined {
  const envelope = envelopeOf(input);
  if (!envelope) return undefined;
  if (envelope.error && typeof envelope.error === "object") {
    const error = envelope.error as { code?: unknown; message?: unknown };
    issues.add({
      type: "logic",
      severity: "high",
      description: `The previous step failed: ${String(error.code ?? "ERROR")}: ${String(error.message ?? "")}`.trim(),
      suggestion: "Fix the previous step's request (see its error details) and run it again",
    });
    return { workflow: null, succeeded: false };
  }
  const data = envelope.data;
  if (typeof data !== "object" || data === null) {
    issues.add({ type: "completeness", severity: "high", description: "The envelope has no data object", path: "data" });
    return { workflow: null, succeeded: false };
  }
  const record = data as Record<string, unknown>;
  const workflow = WORKFLOWS.find((candidate) => candidate.key in record);
  if (!workflow) return { workflow: null, succeeded: true };
  const checked = workflow.schema.safeParse(record);
  if (!checked.success) {
    for (const issue of checked.error.issues.slice(0, 50)) {
      const path = `data.${issue.path.map(String).join(".")}`;
      const missing = issue.code === "invalid_type" && !presentAt(record, issue.path);
      issues.add({
        type: missing ? "completeness" : "type-mismatch",
        severity: "high",
        description: `${workflow.name} result: "${path}" ${missing ? "is missing" : issue.message}`,
        path,
      });
    }
  }
  const code: Array<[string, unknown]> = [];
  if (workflow.name === "generate-test-cases" && JS_FRAMEWORKS.has(String(record.framework))) code.push(["data.testFile", record.testFile]);
  if (workflow.name === "refactor-code") code.push(["data.optimizedCode", record.optimizedCode]);
  if (workflow.name === "generate-documentation" && record.outputFormat === "jsdoc") code.push(["data.document", record.document]);
  for (const [path, value] of code) {
    if (typeof value === "string" && !parsesCleanly(value))
      issues.add({
        type: "format",
        severity: "high",
        description: `${workflow.name} result: ${path} is not valid JavaScript/TypeScript`,
        path,
        suggestion: "Run the step again, or fix the code by hand",
      });
  }
  if (record.simulated === true && typeof record.fallbackReason === "string") {
    issues.add({
      type: "logic",
      severity: "low",
      description: `${workflow.name} fell back to its simulated result: ${record.fallbackReason}`,
      path: "data.fallbackReason",
      suggestion: "Check the provider, or accept the deterministic result",
    });
  }
  return { workflow: workflow.name, succeeded: true };
}
