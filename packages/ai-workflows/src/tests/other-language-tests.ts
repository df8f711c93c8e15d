/**
 * Test files for Python, Ruby and Go code: the signature scanner finds the functions, the checks
 * are chosen per function and written per framework, and the file gets its imports around them.
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { GenerateTestCasesResult, TestCase, TestFramework, TestType } from "../schemas/generate-test-cases-schema.js";
import { goTest, pythonTest, rubyTest } from "./language-test-bodies.js";
import { checksFor } from "./scanned-function-checks.js";
import { type ScannedLanguage, scanFunctions } from "./signature-scanner.js";

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
