import type { FunctionFact, ParameterFact } from "../code/function-facts.js";
import type { GenerateTestCasesResult, TestCase, TestFramework, TestType } from "../schemas/generate-test-cases-schema.js";
import { type ScannedLanguage, scanFunctions } from "./signature-scanner.js";

type Shape = "number" | "float" | "string" | "boolean" | "array" | "object" | "none";

function shapeOf(param: ParameterFact, language: ScannedLanguage): Shape {
  const type = (param.type ?? "")
    .replace(/^Optional\[(.*)\]$/, "$1")
    .replace(/\s*\|\s*None$/, "")
    .trim();
  if (/^(int|int\d*|uint\d*|byte|rune)$/.test(type)) return "number";
  if (/^(float|float\d*|Decimal)$/.test(type)) return "float";
  if (/^(str|string)$/.test(type)) return "string";
  if (/^(bool)$/.test(type)) return "boolean";
  if (/^(\[\]|list|List|Sequence|tuple|Iterable)/.test(type)) return "array";
  if (/^(dict|Dict|Mapping|map\[)/.test(type)) return "object";
  if (type !== "" && language === "go") return "none";
  if (/(count|^n$|num|index|size|length|amount|age|limit|^[xyzab]$)$/i.test(param.name)) return "number";
  if (/(name|text|str|message|title|key|path|url|email|query|word)$/i.test(param.name)) return "string";
  if (/^(is|has|should)_?/i.test(param.name)) return "boolean";
  if (/(items|list|values|numbers)$/i.test(param.name)) return "array";
  return language === "go" ? "none" : "number";
}

const LITERALS: Record<ScannedLanguage, Record<Shape, (param: ParameterFact, position: number) => string>> = {
  python: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "True",
    array: () => "[1, 2, 3]",
    object: () => "{}",
    none: () => "None",
  },
  ruby: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "true",
    array: () => "[1, 2, 3]",
    object: () => "{}",
    none: () => "nil",
  },
  go: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "true",
    array: (p) => `${p.type ?? "[]int"}{}`,
    object: (p) => `${p.type ?? "map[string]int"}{}`,
    none: (p) => (/^\*|^func|^interface|^map|^chan|^error$|^any$/.test(p.type ?? "") ? "nil" : `*new(${p.type})`),
  },
};

function literal(param: ParameterFact, position: number, language: ScannedLanguage, value?: number | string): string {
  if (value !== undefined) return typeof value === "number" ? String(value) : JSON.stringify(value);
  return LITERALS[language][shapeOf(param, language)](param, position);
}

function args(fact: FunctionFact, language: ScannedLanguage, replace?: { index: number; code: string }): string {
  return fact.params
    .filter((param) => !param.rest && (language === "go" || param.defaultValue === null || replace?.index === fact.params.indexOf(param)))
    .map((param) =>
      replace && fact.params.indexOf(param) === replace.index ? replace.code : literal(param, fact.params.indexOf(param), language),
    )
    .join(", ");
}

function callOf(fact: FunctionFact, language: ScannedLanguage, argumentList: string): string {
  if (fact.kind === "class") return language === "ruby" ? `${fact.name}.new` : `${fact.name}()`;
  if (fact.kind === "method") {
    if (language === "go") return `new(${fact.className}).${fact.name}(${argumentList})`;
    if (language === "ruby")
      return fact.isStatic ? `${fact.className}.${fact.name}(${argumentList})` : `${fact.className}.new.${fact.name}(${argumentList})`;
    return `${fact.className}().${fact.name}(${argumentList})`;
  }
  return `${fact.name}(${argumentList})`;
}

const snake = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase()
    .replace(/^_|_$/g, "");
const pascal = (text: string) => text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _s, letter: string) => letter.toUpperCase());

interface Check {
  name: string;
  type: TestType;
  description: string;
  call: string;
  expect: "returns" | "raises" | "fast" | "hostile";
  resultType?: string;
}

function checksFor(fact: FunctionFact, language: ScannedLanguage, types: readonly TestType[]): Check[] {
  if (fact.kind === "class") return [];
  const label = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
  const checks: Check[] = [];
  if (types.includes("unit"))
    checks.push({
      name: `${label} handles typical input`,
      type: "unit",
      description: "Calls it with typical arguments.",
      call: callOf(fact, language, args(fact, language)),
      expect: "returns",
      ...(fact.returnType ? { resultType: fact.returnType } : {}),
    });
  if (types.includes("edge-cases")) {
    for (const condition of fact.conditions.slice(0, 6)) {
      const index = fact.params.findIndex((param) => param.name === condition.param);
      if (index < 0 || condition.value === undefined) continue;
      const value =
        typeof condition.value === "number" && condition.operator === "<"
          ? condition.value - 1
          : typeof condition.value === "number" && condition.operator === ">"
            ? condition.value + 1
            : condition.value;
      const code = literal(fact.params[index] as ParameterFact, index, language, value);
      checks.push({
        name: `${label} ${condition.throws ? "fails" : "branches"} when ${condition.param} is ${code}`,
        type: "edge-cases",
        description: `Boundary of the condition on line ${condition.line} of the function.`,
        call: callOf(fact, language, args(fact, language, { index, code })),
        expect: condition.throws ? "raises" : "returns",
      });
    }
  }
  if (types.includes("performance"))
    checks.push({
      name: `${label} runs 10000 times within 1 second`,
      type: "performance",
      description: "A throughput regression guard.",
      call: callOf(fact, language, args(fact, language)),
      expect: "fast",
    });
  const stringIndex = fact.params.findIndex((param) => shapeOf(param, language) === "string");
  if (types.includes("security") && stringIndex >= 0) {
    checks.push({
      name: `${label} handles hostile strings`,
      type: "security",
      description: "Injection-style strings work or fail with an error, never crash the process.",
      call: callOf(fact, language, args(fact, language, { index: stringIndex, code: "payload" })),
      expect: "hostile",
    });
  }
  return checks;
}

const HOSTILE = ["<script>alert(1)</script>", "' OR '1'='1' --", "../../../etc/passwd", "{{7*7}}"];

function pythonTest(check: Check, unittest: boolean): string {
  const prefix = unittest ? "    " : "";
  const self = unittest ? "self" : "";
  const lines: string[] = [`${prefix}def test_${snake(check.name)}(${self}):`];
  const body = (text: string) => lines.push(`${prefix}    ${text}`);
  if (check.expect === "raises") {
    body(unittest ? "with self.assertRaises(Exception):" : "with pytest.raises(Exception):");
    body(`    ${check.call}`);
  } else if (check.expect === "fast") {
    body("started = time.perf_counter()");
    body("for _ in range(10_000):");
    body(`    ${check.call}`);
    body(unittest ? "self.assertLess(time.perf_counter() - started, 1.0)" : "assert time.perf_counter() - started < 1.0");
  } else if (check.expect === "hostile") {
    body(`for payload in ${JSON.stringify(HOSTILE)}:`);
    body("    try:");
    body(`        ${check.call}`);
    body("    except Exception:");
    body("        pass");
  } else {
    body(`result = ${check.call}`);
    const type = { int: "int", float: "(int, float)", str: "str", bool: "bool", list: "list", dict: "dict" }[
      (check.resultType ?? "").replace(/\[.*$/, "")
    ];
    if (type) body(unittest ? `self.assertIsInstance(result, ${type})` : `assert isinstance(result, ${type})`);
    // No declared type: the same input must give the same result (a determinism check).
    else body(unittest ? `self.assertEqual(result, ${check.call})` : `assert result == ${check.call}`);
  }
  return lines.join("\n");
}

function rubyTest(check: Check): string {
  const body =
    check.expect === "raises"
      ? [`expect { ${check.call} }.to raise_error(StandardError)`]
      : check.expect === "fast"
        ? [
            "started = Process.clock_gettime(Process::CLOCK_MONOTONIC)",
            `10_000.times { ${check.call} }`,
            "expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1.0",
          ]
        : check.expect === "hostile"
          ? [
              `${JSON.stringify(HOSTILE).replace(/^\[/, "[").replace(/\]$/, "]")}.each do |payload|`,
              "  begin",
              `    ${check.call}`,
              "  rescue StandardError",
              "    nil",
              "  end",
              "end",
            ]
          : [`expect { ${check.call} }.not_to raise_error`];
  return [`it ${JSON.stringify(check.name)} do`, ...body.map((line) => `  ${line}`), "end"].join("\n");
}

function goTest(check: Check, fact: FunctionFact): string {
  const returnsError = /\berror\)?\s*$/.test(fact.returnType ?? "");
  const results = (fact.returnType ?? "")
    .replace(/^\(|\)$/g, "")
    .split(",")
    .filter((part) => part.trim() !== "").length;
  const blanks = Array.from({ length: results }, () => "_");
  const lines = [`func Test${pascal(check.name)}(t *testing.T) {`];
  if (check.expect === "raises" && returnsError) {
    blanks[blanks.length - 1] = "err";
    lines.push(`\t${blanks.join(", ")} := ${check.call}`, "\tif err == nil {", '\t\tt.Fatal("expected an error")', "\t}");
  } else if (check.expect === "fast") {
    lines.push(
      "\tstarted := time.Now()",
      "\tfor run := 0; run < 10000; run++ {",
      `\t\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`,
      "\t}",
      "\tif time.Since(started) > time.Second {",
      '\t\tt.Fatalf("too slow: %v", time.Since(started))',
      "\t}",
    );
  } else if (check.expect === "hostile") {
    lines.push(
      `\tfor _, payload := range []string{${HOSTILE.map((item) => JSON.stringify(item)).join(", ")}} {`,
      `\t\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`,
      "\t}",
    );
  } else if (returnsError && check.expect === "returns") {
    blanks[blanks.length - 1] = "err";
    lines.push(`\t${blanks.join(", ")} := ${check.call}`, "\tif err != nil {", '\t\tt.Fatalf("unexpected error: %v", err)', "\t}");
  } else {
    lines.push(`\t${results > 0 ? `${blanks.join(", ")} = ` : ""}${check.call}`);
  }
  lines.push("}");
  return lines
    .join("\n")
    .replace(/^\t_ = /m, "\t_ = ")
    .replace(/\t(_(, _)*) := /, "\t$1 = ");
}

/** Tests for Python (pytest, unittest), Ruby (rspec) or Go (go test) code, from the signature scanner. */
export function otherLanguageTests(
  source: string,
  language: ScannedLanguage,
  framework: TestFramework,
  types: readonly TestType[],
  modulePath: string,
): { cases: TestCase[]; testFile: string; functions: GenerateTestCasesResult["functions"]; warnings: string[] } {
  const facts = scanFunctions(source, language).filter((fact) => fact.exported);
  const cases: TestCase[] = [];
  for (const fact of facts) {
    for (const check of checksFor(fact, language, types)) {
      const code =
        framework === "pytest"
          ? pythonTest(check, false)
          : framework === "unittest"
            ? pythonTest(check, true)
            : framework === "rspec"
              ? rubyTest(check)
              : goTest(check, fact);
      cases.push({
        name: check.name,
        functionName: fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name,
        type: check.type,
        description: check.description,
        code,
      });
    }
  }
  const moduleName = modulePath.replace(/^\.\//, "").replace(/\.(py|rb|go)$/, "");
  const imported = [
    ...new Set(
      facts
        .filter((fact) => fact.kind !== "method")
        .map((fact) => fact.name)
        .concat(facts.filter((fact) => fact.kind === "method").map((fact) => fact.className as string)),
    ),
  ];
  const bodies = cases.map((item) => item.code).join("\n\n");
  const needsTime = types.includes("performance");
  let testFile: string;
  if (framework === "pytest")
    testFile = [
      `import pytest`,
      ...(needsTime ? ["import time"] : []),
      imported.length ? `from ${moduleName.replace(/\//g, ".")} import ${imported.join(", ")}` : "",
      "",
      "",
      bodies,
      "",
    ].join("\n");
  else if (framework === "unittest")
    testFile = [
      "import unittest",
      ...(needsTime ? ["import time"] : []),
      imported.length ? `from ${moduleName.replace(/\//g, ".")} import ${imported.join(", ")}` : "",
      "",
      "",
      "class GeneratedTests(unittest.TestCase):",
      bodies || "    pass",
      "",
      "",
      'if __name__ == "__main__":',
      "    unittest.main()",
      "",
    ].join("\n");
  else if (framework === "rspec")
    testFile = [
      `require_relative ${JSON.stringify(moduleName)}`,
      "",
      'RSpec.describe "generated tests" do',
      bodies
        .split("\n")
        .map((line) => (line ? `  ${line}` : line))
        .join("\n"),
      "end",
      "",
    ].join("\n");
  else
    testFile = [
      `package ${/^package\s+(\w+)/m.exec(source)?.[1] ?? "main"}`,
      "",
      "import (",
      '\t"testing"',
      ...(needsTime ? ['\t"time"'] : []),
      ")",
      "",
      bodies,
      "",
    ].join("\n");
  const { functionInfo } = {
    functionInfo: (fact: FunctionFact) => ({
      name: fact.name,
      kind: fact.kind,
      className: fact.className,
      params: fact.params,
      returnType: fact.returnType,
      async: fact.async,
      generator: false,
      exported: fact.exported,
      line: fact.line,
      endLine: fact.endLine,
      branches: fact.branches,
      throws: fact.throws,
      documentation: fact.documentation,
    }),
  };
  const warnings = [`${language} is read by a signature scanner, not a full parser: check the generated tests before relying on them.`];
  if (facts.length === 0) warnings.push(`No ${language} functions were found.`);
  return { cases, testFile, functions: facts.map(functionInfo), warnings };
}
