import { z } from "zod";
import { parseCode, parsesCleanly } from "../code/parse-code.js";
import type { ModelStep } from "../provider/run-workflow.js";
import type { ResultMeta } from "../schemas/common.js";
import {
  FOCUS_AREAS,
  type FocusArea,
  type Improvement,
  type RefactorCodeRequest,
  type RefactorCodeResult,
  improvementSchema,
} from "../schemas/refactor-code-schema.js";
import { codeMetrics } from "./code-metrics.js";
import { detectDuplicatedLiterals, detectLongFunctions, detectNestedConditionals } from "./detect-structure.js";
import { type Finding, detectLooseEquality, detectStringConcatenation, detectVarDeclarations } from "./detect-syntax.js";
import { applyEdits } from "./edits.js";

type Refactoring = Omit<RefactorCodeResult, keyof ResultMeta>;

/** Which patterns matter most for each target: first in the list, first in the report. */
const TARGET_ORDER: Record<RefactorCodeRequest["target"], FocusArea[]> = {
  readability: [
    "nested-conditionals",
    "long-functions",
    "string-concatenation",
    "duplicated-literals",
    "var-declarations",
    "strict-equality",
  ],
  maintainability: [
    "long-functions",
    "duplicated-literals",
    "nested-conditionals",
    "var-declarations",
    "strict-equality",
    "string-concatenation",
  ],
  "modern-syntax": [
    "var-declarations",
    "string-concatenation",
    "strict-equality",
    "nested-conditionals",
    "duplicated-literals",
    "long-functions",
  ],
  performance: [
    "strict-equality",
    "long-functions",
    "nested-conditionals",
    "var-declarations",
    "duplicated-literals",
    "string-concatenation",
  ],
};

function detect(area: FocusArea, parsed: ReturnType<typeof parseCode>, target: RefactorCodeRequest["target"]): Finding[] {
  switch (area) {
    case "var-declarations":
      return detectVarDeclarations(parsed);
    case "strict-equality":
      return detectLooseEquality(parsed);
    case "string-concatenation":
      return detectStringConcatenation(parsed);
    case "nested-conditionals":
      return detectNestedConditionals(parsed);
    case "long-functions":
      return detectLongFunctions(parsed, target === "maintainability" ? 40 : 50);
    case "duplicated-literals":
      return detectDuplicatedLiterals(parsed);
  }
}

function runtimeImpact(target: RefactorCodeRequest["target"], applied: Improvement[]): string {
  if (applied.length === 0) return "None: no change was applied.";
  const kinds = new Set(applied.map((item) => item.type));
  const parts = ["The applied changes are structural and keep behavior; expect no measurable speed change"];
  if (kinds.has("strict-equality")) parts.push("strict comparisons skip type conversion (a negligible gain)");
  if (target === "performance")
    parts.push("measure hot paths with a profiler before optimizing further: none of these patterns is a bottleneck by itself");
  return `${parts.join("; ")}.`;
}

/**
 * `refactor-code` without a model: finds `var`, loose equality, nested conditionals, long
 * functions, duplicated literals and string concatenation in the parsed code, applies the
 * changes that keep behavior (all-or-nothing per change, re-parsed to prove the result is
 * valid), and measures the code before and after.
 */
export function refactorCode(request: RefactorCodeRequest): Refactoring {
  const parsed = parseCode(request.sourceCode, request.language);
  const areas = request.focusAreas;
  const ordered = TARGET_ORDER[request.target].filter((area) => areas.includes(area));
  const findings = parsed.ast && parsed.errors.length === 0 ? ordered.flatMap((area) => detect(area, parsed, request.target)) : [];
  // Structural rewrites first: their edits claim their ranges before smaller ones inside them.
  const priority: FocusArea[] = [
    "nested-conditionals",
    "var-declarations",
    "strict-equality",
    "duplicated-literals",
    "string-concatenation",
    "long-functions",
  ];
  const byPriority = [...findings].sort((a, b) => priority.indexOf(a.improvement.type) - priority.indexOf(b.improvement.type));
  let { output, accepted } = applyEdits(
    request.sourceCode,
    byPriority.map((finding) => finding.edits),
  );
  if (!parsesCleanly(output, parsed.language)) {
    // A safety net: keep only changes that leave the code valid, one at a time.
    const kept = byPriority.map(() => false);
    for (const [index] of byPriority.entries()) {
      const trial = applyEdits(
        request.sourceCode,
        byPriority.map((finding, other) => (kept[other] || other === index ? finding.edits : [])),
      );
      if (trial.accepted[index] && parsesCleanly(trial.output, parsed.language)) kept[index] = true;
    }
    ({ output, accepted } = applyEdits(
      request.sourceCode,
      byPriority.map((finding, index) => (kept[index] ? finding.edits : [])),
    ));
  }
  const improvements: Improvement[] = byPriority.map((finding, index) => {
    const applied = accepted[index] === true;
    const reason = applied
      ? undefined
      : (finding.improvement.reason ??
        (finding.edits.length === 0 ? "not applied automatically" : "overlaps another change; apply it after that one"));
    const { reason: _reason, ...rest } = finding.improvement;
    return { ...rest, applied, ...(reason ? { reason } : {}) };
  });
  const order = { high: 0, medium: 1, low: 2 } as const;
  improvements.sort((a, b) => ordered.indexOf(a.type) - ordered.indexOf(b.type) || order[a.impact] - order[b.impact] || a.line - b.line);
  const before = codeMetrics(parsed);
  const after = codeMetrics(parseCode(output, parsed.language));
  return {
    optimizedCode: output,
    improvements,
    performanceGains: {
      metricsBefore: before,
      metricsAfter: after,
      cyclomaticComplexityChange: after.cyclomaticComplexity - before.cyclomaticComplexity,
      maxNestingDepthChange: after.maxNestingDepth - before.maxNestingDepth,
      linesChange: after.lines - before.lines,
      estimatedRuntimeImpact:
        parsed.errors.length > 0
          ? "None: the code has syntax errors (see parseErrors), so nothing was changed."
          : runtimeImpact(
              request.target,
              improvements.filter((item) => item.applied),
            ),
    },
    target: request.target,
    parseErrors: parsed.errors.slice(0, 50),
  };
}

const modelOutputSchema = z.object({
  optimizedCode: z
    .string()
    .min(1)
    .refine((code) => parsesCleanly(code), { message: "must be valid JavaScript/TypeScript (it does not parse)" }),
  improvements: z
    .array(improvementSchema.omit({ applied: true, reason: true, column: true }).extend({ column: z.number().int().optional() }))
    .max(50),
});

/** The AI path: the model refactors; its code must parse, and the metrics are measured on it. */
export function refactorModelStep(
  request: RefactorCodeRequest,
): (simulated: Refactoring) => ModelStep<Refactoring, z.infer<typeof modelOutputSchema>> | undefined {
  return (simulated) =>
    simulated.parseErrors.length > 0
      ? undefined
      : {
          instructions: `Refactor the code for ${request.target} without changing its behavior. Report each change with its type (${FOCUS_AREAS.join(", ")}), line, before and after.`,
          prompt: `Code:\n${request.sourceCode}\n\nPatterns found by analysis: ${JSON.stringify(simulated.improvements.map(({ type, line, before, after, applied }) => ({ type, line, before, after, applied })))}`,
          schema: modelOutputSchema,
          merge: (refactoring, output) => {
            const language = parseCode(output.optimizedCode).language;
            const after = codeMetrics(parseCode(output.optimizedCode, language));
            const before = refactoring.performanceGains.metricsBefore;
            return {
              ...refactoring,
              optimizedCode: output.optimizedCode,
              improvements: output.improvements.map((item) => ({ ...item, column: item.column ?? 1, applied: true })),
              performanceGains: {
                ...refactoring.performanceGains,
                metricsAfter: after,
                cyclomaticComplexityChange: after.cyclomaticComplexity - before.cyclomaticComplexity,
                maxNestingDepthChange: after.maxNestingDepth - before.maxNestingDepth,
                linesChange: after.lines - before.lines,
              },
            };
          },
        };
}
