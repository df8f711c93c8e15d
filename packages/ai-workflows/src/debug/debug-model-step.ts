import { parseDocument } from "yaml";
import { z } from "zod";
import { parsesCleanly } from "../code/parse-code.js";
import type { ModelStep } from "../provider/run-workflow.js";
import { severitySchema } from "../schemas/common.js";
import { type DebugAiOutputRequest, ISSUE_TYPES } from "../schemas/debug-ai-output-schema.js";
import { type Debugging, summarize } from "./debug-ai-output.js";
import type { ExpectedFormat } from "./expected-format.js";
import { yamlParsable } from "./check-text.js";
import { IssueList } from "./issue-list.js";

const modelOutputSchema = z.object({
  issues: z
    .array(
      z.object({
        type: z.enum(ISSUE_TYPES),
        description: z.string().min(1).max(1000),
        severity: severitySchema,
        line: z.number().int().min(1).optional(),
        suggestion: z.string().max(1000).optional(),
      }),
    )
    .max(50),
  recommendations: z.array(z.string().min(1).max(1000)).max(10),
  correctedOutput: z.string().optional(),
});

function parsesAs(format: string, text: string, expected: ExpectedFormat): boolean {
  if (format === "json") {
    try {
      const value = JSON.parse(text);
      return expected.validator ? expected.validator.safeParse(value).success : true;
    } catch {
      return false;
    }
  }
  if (format === "yaml") return yamlParsable(text) && parseDocument(text).errors.length === 0;
  if (format === "javascript" || format === "typescript") return parsesCleanly(text, format);
  return true;
}

/**
 * The AI path: after the deterministic analysis, the model looks for what rules cannot see
 * (logic and completeness); its issues are added, counted and grouped with the others, and its
 * corrected output is used only when it parses in the expected format.
 */
export function debugModelStep(
  request: DebugAiOutputRequest,
  expected: ExpectedFormat,
): (simulated: Debugging) => ModelStep<Debugging, z.infer<typeof modelOutputSchema>> {
  const text = typeof request.aiResponse === "string" ? request.aiResponse : JSON.stringify(request.aiResponse, null, 2);
  return (simulated) => ({
    instructions: `Debug the AI output below: find logic errors, missing content and type mismatches that a parser cannot see (issue types: ${request.issueTypes.join(", ")}). Give line numbers where you can, and a corrected output in ${simulated.analysis.detectedFormat} when one is needed.`,
    prompt: `Expected format: ${expected.name === "json-schema" ? JSON.stringify(request.expectedFormat) : expected.name}\nIssues found by analysis: ${JSON.stringify(simulated.issues.slice(0, 50))}\nOutput:\n${text}`,
    schema: modelOutputSchema,
    merge: (debugging, output) => {
      const issues = new IssueList(new Set(request.issueTypes));
      for (const issue of debugging.issues) issues.add(issue);
      for (const issue of output.issues) issues.add({ ...issue, source: "model" });
      issues.skipped.push(...debugging.analysis.checksSkipped);
      const modelCorrection =
        output.correctedOutput !== undefined && parsesAs(debugging.analysis.detectedFormat, output.correctedOutput, expected)
          ? output.correctedOutput
          : undefined;
      const merged = summarize(request, issues, {
        detected: debugging.analysis.detectedFormat,
        expected: debugging.analysis.expectedFormat,
        previousStep: debugging.analysis.previousStep,
        corrected: debugging.correctedOutput ?? modelCorrection,
        strong: debugging.confidence >= 0.8,
      });
      return {
        ...merged,
        recommendations: [
          ...new Set([...merged.recommendations.filter((item) => !item.startsWith("No problems")), ...output.recommendations]),
        ],
      };
    },
  });
}
