import type { ResultMeta } from "../schemas/common.js";
import { type DebugAiOutputRequest, type DebugAiOutputResult, type DebugIssue, ISSUE_TYPES } from "../schemas/debug-ai-output-schema.js";
import { checkJson, reportDuplicateKeys, scanJson } from "./check-json.js";
import { checkSchema } from "./check-schema.js";
import { checkCode, checkMarkdown, checkYaml, fencedBlocks } from "./check-text.js";
import { checkContent } from "./check-content.js";
import type { ExpectedFormat } from "./expected-format.js";
import { IssueList } from "./issue-list.js";
import { checkPreviousStep } from "./previous-step.js";
import { correctedJson, repairJsonValue, repairMarkdown, repairYaml } from "./repair-output.js";
import { TextPositions } from "./text-positions.js";

export type Debugging = Omit<DebugAiOutputResult, keyof ResultMeta>;
const MAX_ISSUES = 500;

/** What the output looks like, when the caller did not say. */
function detectFormat(text: string): { format: string; strong: boolean } {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) return { format: "json", strong: true };
  const fence = /^(`{3,}|~{3,})\s*([\w+#.-]*)\s*\n[\s\S]*\n\1\s*$/.exec(trimmed);
  if (fence && !trimmed.slice(3).includes(`\n${fence[1]}\n`)) {
    const language = (fence[2] ?? "").toLowerCase();
    if (language === "json") return { format: "json", strong: true };
    if (language === "yaml" || language === "yml") return { format: "yaml", strong: true };
    if (["js", "javascript", "jsx", "mjs"].includes(language)) return { format: "javascript", strong: true };
    if (["ts", "typescript", "tsx"].includes(language)) return { format: "typescript", strong: true };
  }
  if (/^\s{0,3}(#{1,6}\s|[-*]\s|\d+\.\s|\|.*\||`{3}|~{3}|>\s)/m.test(trimmed)) return { format: "markdown", strong: false };
  const lines = trimmed.split("\n").filter((line) => line.trim() !== "");
  if (lines.length >= 2 && lines.filter((line) => /^\s*(-\s+)?[\w"'.-]+:(\s|$)/.test(line)).length / lines.length > 0.6)
    return { format: "yaml", strong: false };
  return { format: "text", strong: false };
}

/** Strips one surrounding code fence, and for JSON any prose around the value; reports both. */
function unwrap(text: string, format: string, positions: TextPositions, issues: IssueList): { inner: string; offset: number } {
  const fence = /^(\s*)(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\2\s*$/.exec(text);
  if (fence) {
    issues.add({
      type: "format",
      severity: "low",
      description: `The ${format} is wrapped in a markdown code fence`,
      line: 1,
      column: 1,
      suggestion: "Ask for the raw output, or strip the fence before parsing (correctedOutput does)",
    });
    return { inner: fence[3] as string, offset: (fence[1] as string).length + text.slice((fence[1] as string).length).indexOf("\n") + 1 };
  }
  if (format === "json") {
    const start = text.search(/[[{]/);
    const trimmedStart = text.length - text.trimStart().length;
    if (start > trimmedStart) {
      issues.add({
        type: "format",
        severity: "medium",
        description: "Text before the JSON value",
        ...positions.at(trimmedStart),
        suggestion: "Ask for JSON only, without an introduction",
      });
      return { inner: text.slice(start), offset: start };
    }
    if (start < 0)
      issues.add({
        type: "format",
        severity: "high",
        description: "Expected JSON, but the output contains no JSON object or array",
        line: 1,
        column: 1,
        suggestion: "Ask explicitly for a JSON object (or use the provider's JSON mode)",
      });
  }
  return { inner: text, offset: 0 };
}

const RECOMMENDATIONS: Array<[(issue: DebugIssue) => boolean, string]> = [
  [
    (issue) => issue.type === "format" && /JSON/.test(issue.description),
    "Use the provider's JSON mode or structured outputs, and validate every answer against a schema before using it.",
  ],
  [
    (issue) => /cut off|mid-sentence|never closed|ends before/.test(issue.description),
    "The output was truncated: raise maxTokens or ask for a shorter answer.",
  ],
  [
    (issue) => issue.type === "type-mismatch",
    "State the expected types in the prompt (or give the model the JSON Schema) and coerce values on your side.",
  ],
  [
    (issue) => issue.type === "completeness" && /Missing required/.test(issue.description),
    "List the required fields in the prompt; models drop fields they were not told about.",
  ],
  [(issue) => /repeats/.test(issue.description), "Lower the temperature or add a frequency/presence penalty to stop repetition."],
  [(issue) => /refused/.test(issue.description), "The model declined: rephrase the request or supply the missing context."],
  [(issue) => /previous step/.test(issue.description), "Fix the previous workflow step before feeding its output forward."],
];

/**
 * `debug-ai-output` without a model: a deterministic reading of the output in its format (JSON,
 * YAML, markdown, code) with every error located, schema checks, content checks, a repaired
 * output that parses, grouped and counted issues. Never throws on the output itself.
 */
export function debugAiOutput(request: DebugAiOutputRequest, expected: ExpectedFormat): Debugging {
  const issues = new IssueList(new Set(request.issueTypes));
  const text = typeof request.aiResponse === "string" ? request.aiResponse : JSON.stringify(request.aiResponse, null, 2);
  const positions = new TextPositions(text);
  let previousStep: Debugging["analysis"]["previousStep"] = null;
  issues.run("previous-step", () => {
    previousStep = checkPreviousStep(request.aiResponse, issues) ?? null;
  });
  const detected = detectFormat(text);
  const format = expected.name === "json-schema" ? "json" : expected.name === "auto" ? detected.format : expected.name;
  const quick = request.analysisDepth === "quick";
  const comprehensive = request.analysisDepth === "comprehensive";
  let corrected: string | undefined;
  for (const pattern of expected.droppedPatterns)
    issues.skipped.push(`schema pattern not evaluated (risk of catastrophic backtracking): ${pattern}`);

  if (format === "json") {
    issues.run("json", () => {
      const { inner, offset } = unwrap(text, "JSON", positions, issues);
      const reading = checkJson(inner, offset, positions, issues);
      let scanned: ReturnType<typeof scanJson> | undefined;
      if (reading.ok && (!quick || expected.validator)) {
        issues.run("json-structure", () => {
          scanned = scanJson(inner, expected.validator !== undefined);
        });
        if (scanned && !quick) reportDuplicateKeys(scanned.duplicates, offset, positions, issues);
      }
      const doubleEncoded = reading.ok && typeof reading.value === "string" && /^\s*[[{]/.test(reading.value);
      if (doubleEncoded) {
        issues.add({
          type: "type-mismatch",
          severity: "medium",
          description: "The JSON is a string holding JSON (encoded twice)",
          line: 1,
          column: 1,
          suggestion: "Parse it once more, or ask for the object itself",
        });
      }
      const validator = expected.validator;
      const repaired = reading.ok ? { value: reading.value } : repairJsonValue(inner);
      if (validator && reading.ok) {
        let value = reading.value;
        issues.run("double-encoded", () => {
          if (doubleEncoded) value = JSON.parse(reading.value as string);
        });
        issues.run("schema", () => checkSchema(value, validator, doubleEncoded ? undefined : scanned?.offsets, offset, positions, issues));
      } else if (validator && repaired !== undefined) {
        // Schema problems still matter when the syntax is broken: check the repaired value (without positions).
        issues.run("schema", () => checkSchema(repaired.value, validator, undefined, offset, positions, issues));
      }
      const needsCorrection = issues.issues.some((issue) => issue.type !== "logic") || inner !== text;
      if (needsCorrection && repaired !== undefined)
        issues.run("correction", () => {
          corrected = correctedJson(doubleEncoded ? JSON.parse(reading.value as string) : repaired.value, validator);
        });
    });
  } else if (format === "yaml") {
    issues.run("yaml", () => {
      const { inner, offset } = unwrap(text, "YAML", positions, issues);
      const reading = checkYaml(inner, offset, positions, issues);
      if (!reading.ok) corrected = repairYaml(inner);
      else if (inner !== text) corrected = inner;
    });
  } else if (format === "javascript" || format === "typescript") {
    issues.run("code", () => {
      const { inner, offset } = unwrap(text, format === "typescript" ? "TypeScript" : "JavaScript", positions, issues);
      checkCode(inner, offset, format, positions, issues, quick ? 1 : 20);
      if (inner !== text) corrected = inner;
    });
  }
  const blocks = format === "markdown" || format === "text" ? fencedBlocks(text) : [];
  if (format === "markdown" && !quick) {
    issues.run("markdown", () => {
      checkMarkdown(text, positions, issues, blocks);
      for (const block of blocks.filter((item) => item.closed).slice(0, 50)) {
        if (block.language === "json") checkJson(block.content, block.offset, positions, issues);
        else if (block.language === "yaml" || block.language === "yml") checkYaml(block.content, block.offset, positions, issues);
        else if (comprehensive && ["js", "javascript", "jsx", "ts", "typescript", "tsx"].includes(block.language))
          checkCode(block.content, block.offset, block.language.startsWith("t") ? "typescript" : "javascript", positions, issues);
      }
      corrected = repairMarkdown(text, blocks);
    });
  }
  if (!quick) issues.run("content", () => checkContent(text, positions, issues, format === "text" || format === "markdown"));
  return summarize(request, issues, {
    detected: format,
    expected: expected.name,
    previousStep,
    corrected,
    strong: expected.name !== "auto" || detected.strong,
  });
}

export function summarize(
  request: DebugAiOutputRequest,
  issues: IssueList,
  facts: {
    detected: string;
    expected: string;
    previousStep: Debugging["analysis"]["previousStep"];
    corrected: string | undefined;
    strong: boolean;
  },
): Debugging {
  const order = Object.fromEntries(ISSUE_TYPES.map((type, index) => [type, index]));
  const sorted = [...issues.issues].sort(
    (a, b) => (order[a.type] ?? 9) - (order[b.type] ?? 9) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
  );
  const listed = sorted.slice(0, MAX_ISSUES);
  const severityDistribution: Record<string, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  const issuesByType: Record<string, number> = Object.fromEntries(ISSUE_TYPES.map((type) => [type, 0]));
  for (const issue of listed) {
    severityDistribution[issue.severity] = (severityDistribution[issue.severity] ?? 0) + 1;
    issuesByType[issue.type] = (issuesByType[issue.type] ?? 0) + 1;
  }
  const suggestions = [...new Set(listed.flatMap((issue) => (issue.suggestion ? [issue.suggestion] : [])))].slice(0, 20);
  const recommendations = RECOMMENDATIONS.filter(([matches]) => listed.some(matches)).map(([, text]) => text);
  if (listed.length === 0) recommendations.push("No problems found by the checks that ran.");
  const confidence = Math.max(0.05, Math.min(1, (facts.strong ? 0.95 : 0.7) - (issues.skipped.length > 0 ? 0.15 : 0)));
  return {
    analysis: {
      analysisDepth: request.analysisDepth,
      issuesFound: listed.length,
      severityDistribution,
      issuesByType,
      detectedFormat: facts.detected,
      expectedFormat: facts.expected,
      previousStep: facts.previousStep,
      omittedIssues: sorted.length - listed.length,
      checksSkipped: issues.skipped,
    },
    issues: listed,
    suggestions,
    recommendations,
    ...(facts.corrected === undefined ? {} : { correctedOutput: facts.corrected }),
    confidence: Math.round(confidence * 100) / 100,
  };
}
