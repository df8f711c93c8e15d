import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase, TestFramework, TestType } from "../schemas/generate-test-cases-schema.js";
import { assertStyle, expectStyle } from "./assertion-style.js";
import { type JsCaseContext, jsTestCases, validExamples } from "./js-test-cases.js";

const HEADERS: Record<string, string[]> = {
  vitest: ['import { describe, expect, it } from "vitest";'],
  jest: ['import { describe, expect, it } from "@jest/globals";'],
  mocha: ['import assert from "node:assert/strict";', "// describe and it are mocha's globals"],
  "node-test": ['import assert from "node:assert/strict";', 'import { describe, it } from "node:test";'],
};

const SAFE_IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Test cases and a complete test file for JavaScript/TypeScript frameworks. Tests import the
 * module's exports; a snippet without exports is treated as exporting its top-level functions.
 */
export function jsTests(
  facts: FunctionFact[],
  types: readonly TestType[],
  framework: TestFramework,
  modulePath: string,
  typescript: boolean,
): { cases: TestCase[]; testFile: string; warnings: string[] } {
  const warnings: string[] = [];
  const topLevel = facts.filter((fact) => fact.kind !== "method");
  const anyExports = topLevel.some((fact) => fact.exported);
  if (!anyExports && topLevel.length > 0)
    warnings.push(
      `The code exports nothing; the tests import ${topLevel.map((fact) => fact.name).join(", ")} from "${modulePath}" — export them there.`,
    );
  const importable = (fact: FunctionFact) => (anyExports ? fact.exported : true) && SAFE_IDENTIFIER.test(fact.name);
  const importName = (fact: FunctionFact) =>
    fact.exportName && fact.exportName !== "default" && SAFE_IDENTIFIER.test(fact.exportName) ? fact.exportName : fact.name;
  const tested = facts.filter((fact) =>
    fact.kind === "method" ? topLevel.some((owner) => owner.name === fact.className && importable(owner)) : importable(fact),
  );
  for (const fact of topLevel)
    if (!importable(fact)) warnings.push(`${fact.name} (line ${fact.line}) is not exported, so it is not tested directly.`);
  const context: JsCaseContext = {
    style: framework === "mocha" || framework === "node-test" ? assertStyle : expectStyle,
    typescript,
    importName,
    byName: new Map(topLevel.map((fact) => [fact.name, fact])),
    validExamples: validExamples(tested),
  };
  const methods = facts.filter((fact) => fact.kind === "method");
  const cases = tested.flatMap((fact) => jsTestCases(fact, types, context, methods));
  // A case names its function (`f` or `Class.method`); integration cases may call more, so calls count too.
  const named = new Set(cases.map((item) => item.functionName.split(".")[0] as string));
  for (const fact of tested) if (named.has(fact.name)) for (const callee of fact.calls) named.add(callee);
  const used = topLevel.filter((fact) => importable(fact) && named.has(fact.name));
  const defaultImport = used.find((fact) => fact.exportName === "default");
  const namedImports = used.filter((fact) => fact !== defaultImport).map(importName);
  const imports: string[] = [];
  if (defaultImport || namedImports.length > 0) {
    const parts = [
      defaultImport ? importName(defaultImport) : undefined,
      namedImports.length > 0 ? `{ ${[...new Set(namedImports)].join(", ")} }` : undefined,
    ].filter(Boolean);
    imports.push(`import ${parts.join(", ")} from ${JSON.stringify(modulePath)};`);
  }
  const groups = new Map<string, TestCase[]>();
  for (const item of cases) {
    const group = groups.get(item.functionName) ?? [];
    group.push(item);
    groups.set(item.functionName, group);
  }
  const blocks = [...groups].map(
    ([name, items]) => `describe(${JSON.stringify(name)}, () => {\n${items.map((item) => indent(item.code)).join("\n\n")}\n});`,
  );
  const testFile = [...(HEADERS[framework] ?? []), ...imports, "", blocks.join("\n\n"), ""].join("\n");
  return { cases, testFile, warnings };
}

function indent(code: string): string {
  return code
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
}
