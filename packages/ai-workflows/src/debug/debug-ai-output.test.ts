import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { ISSUE_TYPES, debugAiOutputRequestSchema } from "../schemas/debug-ai-output-schema.js";
import { debugAiOutput } from "./debug-ai-output.js";
import { resolveExpectedFormat } from "./expected-format.js";

function debug(body: Record<string, unknown>) {
  const request = debugAiOutputRequestSchema.parse({ expectedFormat: "auto", issueTypes: [...ISSUE_TYPES], ...body });
  const result = debugAiOutput(request, resolveExpectedFormat(request.expectedFormat));
  expect(result.analysis.issuesFound).toBe(result.issues.length);
  expect(Object.values(result.analysis.severityDistribution).reduce((sum, count) => sum + count, 0)).toBe(result.issues.length);
  return result;
}

describe("debug-ai-output", () => {
  it("locates a JSON syntax error by line and column and repairs it", () => {
    const result = debug({ aiResponse: '{\n  "name": "Ada",\n  "skills": ["math" "poetry"]\n}', expectedFormat: "json" });
    expect(result.issues).toEqual([expect.objectContaining({ type: "format", severity: "high", line: 3, column: 21 })]);
    expect(JSON.parse(result.correctedOutput as string)).toEqual({ name: "Ada", skills: ["math", "poetry"] });
  });

  it("calls a JSON cut off mid-way a completeness problem and closes it", () => {
    const result = debug({ aiResponse: '{"items": [{"id": 1}, {"id": 2, "tags": ["a", "b', expectedFormat: "auto" });
    expect(result.analysis.detectedFormat).toBe("json");
    expect(result.issues[0]).toMatchObject({ type: "completeness", severity: "critical" });
    expect(result.recommendations.join(" ")).toMatch(/maxTokens/);
    expect(JSON.parse(result.correctedOutput as string).items[1].id).toBe(2);
  });

  it("checks a JSON Schema: missing fields, wrong types, constraints; groups issues by type; coerces in the correction", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "integer" },
        email: { type: "string" },
        role: { enum: ["admin", "user"] },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["id", "email", "role"],
    };
    const result = debug({
      aiResponse: '{\n  "id": "7",\n  "role": "root",\n  "tags": ["a", 3]\n}',
      expectedFormat: JSON.stringify(schema),
    });
    expect(result.issues.map((issue) => [issue.type, issue.path, issue.line])).toEqual([
      ["format", "role", 3],
      ["completeness", "email", 1],
      ["type-mismatch", "id", 2],
      ["type-mismatch", "tags.1", 4],
    ]);
    expect(result.analysis.issuesByType).toEqual({ format: 1, logic: 0, completeness: 1, "type-mismatch": 2 });
    expect(JSON.parse(result.correctedOutput as string)).toEqual({ id: 7, role: "root", tags: ["a", "3"] });
  });

  it("finds keys repeated in one object, located", () => {
    const result = debug({ aiResponse: '{\n  "a": 1,\n  "b": {"c": 1, "c": 2},\n  "a": 3\n}', expectedFormat: "json" });
    expect(result.issues.map((issue) => [issue.type, issue.line, issue.column, issue.description.slice(0, 9)])).toEqual([
      ["logic", 3, 17, 'Key "c" a'],
      ["logic", 4, 3, 'Key "a" a'],
    ]);
  });

  it("reports only the requested issue types", () => {
    const result = debug({
      aiResponse: '{"id": "7"}',
      expectedFormat: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } }, required: ["id", "name"] },
      issueTypes: ["completeness"],
    });
    expect(result.issues.map((issue) => issue.type)).toEqual(["completeness"]);
  });

  it("finds YAML errors, duplicate keys, unclosed fences, broken tables, repetition and refusals", () => {
    const yaml = debug({ aiResponse: "name: app\nlabels:\n  tier: web\n    zone: eu\nname: again\n", expectedFormat: "yaml" });
    expect(yaml.issues.map((issue) => [issue.type, issue.line, issue.column])).toEqual([
      ["format", 3, 9],
      ["format", 3, 9],
      ["logic", 5, 1],
    ]);
    const markdown = debug({
      aiResponse:
        '# Title\n### Skipped\n| a | b |\n|---|---|\n| 1 | 2 | 3 |\nAs an AI language model I cannot help.\nSee [docs]().\n```json\n{"a": 1,}\n```\n```js\nconst x = 1;\n',
      expectedFormat: "markdown",
    });
    const descriptions = markdown.issues.map((issue) => `${issue.type}@${issue.line}: ${issue.description}`);
    expect(descriptions).toEqual(
      expect.arrayContaining([
        "format@2: Heading jumps from level 1 to 3",
        "format@5: Table row has 3 cells, the header has 2",
        expect.stringMatching(/^format@9: Invalid JSON/),
        'completeness@7: Link "docs" has no target',
        "completeness@11: A code fence is opened and never closed (the output may be cut off)",
        expect.stringMatching(/^logic@6: The model refused/),
      ]),
    );
    expect(markdown.correctedOutput?.endsWith("```\n")).toBe(true);
    const looping = debug({
      aiResponse: Array.from({ length: 6 }, () => "The answer is forty-two, as always.").join("\n"),
      expectedFormat: "text",
    });
    expect(looping.issues[0]).toMatchObject({ type: "logic", severity: "high", line: 1 });
  });

  it("accepts a previous step's whole result envelope and checks it as that step's result", () => {
    const envelope = {
      data: {
        optimizedCode: "const x = ;",
        improvements: [],
        target: "readability",
        parseErrors: [],
        simulated: true,
        provider: null,
        model: null,
        fallbackReason: "provider timed out",
      },
      metadata: { requestId: "req-1" },
    };
    const result = debug({ aiResponse: envelope, expectedFormat: "auto" });
    expect(result.analysis.previousStep).toEqual({ workflow: "refactor-code", succeeded: true });
    const descriptions = result.issues.map((issue) => issue.description).join("\n");
    expect(descriptions).toContain('"data.performanceGains" is missing');
    expect(descriptions).toContain("data.optimizedCode is not valid JavaScript/TypeScript");
    expect(descriptions).toContain("fell back to its simulated result: provider timed out");
    const failed = debug({ aiResponse: JSON.stringify({ error: { code: "VALIDATION_ERROR", message: "bad" }, metadata: {} }) });
    expect(failed.analysis.previousStep).toEqual({ workflow: null, succeeded: false });
    expect(failed.issues[0]?.description).toContain("The previous step failed: VALIDATION_ERROR: bad");
  });

  it("handles hostile and malformed output without throwing", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    for (const aiResponse of [
      "",
      "\u0000\u0001",
      deep,
      "[".repeat(100_000),
      '{"__proto__": {"polluted": true}}',
      "```",
      "{".repeat(50_000),
      "- a: [\n  b: {",
      "x".repeat(1_000_000),
    ]) {
      for (const expectedFormat of ["auto", "json", "yaml", "markdown", "typescript"]) {
        for (const analysisDepth of ["quick", "comprehensive"]) {
          const result = debug({ aiResponse, expectedFormat, analysisDepth });
          if (result.correctedOutput !== undefined && expectedFormat === "json") JSON.parse(result.correctedOutput);
          if (result.correctedOutput !== undefined && expectedFormat === "yaml")
            expect(parseDocument(result.correctedOutput).errors).toEqual([]);
        }
      }
    }
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  });

  it("refuses unusable expected formats and neutralizes catastrophic schema patterns", () => {
    expect(() => resolveExpectedFormat("csv")).toThrow(/Request validation failed/);
    expect(() => resolveExpectedFormat({ $ref: "#" })).toThrow(/Request validation failed/);
    const result = debug({
      aiResponse: JSON.stringify({ code: `${"a".repeat(40)}!` }),
      expectedFormat: { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } } },
    });
    expect(result.analysis.checksSkipped[0]).toMatch(/pattern not evaluated/);
  });
});
