/**
 * The generated JavaScript/TypeScript test cases of one function, one module per test type.
 * The names this module exported before the split are re-exported from here.
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase, TestType } from "../schemas/generate-test-cases-schema.js";
import type { JsCaseContext } from "./js-case-context.js";
import { edgeCaseTests } from "./js-edge-case-tests.js";
import { integrationTests } from "./js-integration-tests.js";
import { performanceTests } from "./js-performance-tests.js";
import { securityTests } from "./js-security-tests.js";
import { unitTests } from "./js-unit-tests.js";

export { type JsCaseContext, callOf } from "./js-case-context.js";
export { exampleCandidates, validExamples } from "./js-example-expectations.js";

/** The test cases of one function for the asked test types. */
export function jsTestCases(fact: FunctionFact, types: readonly TestType[], context: JsCaseContext, methods: FunctionFact[]): TestCase[] {
  const cases: TestCase[] = [];
  if (types.includes("unit")) cases.push(...unitTests(fact, context));
  if (types.includes("edge-cases")) cases.push(...edgeCaseTests(fact, context));
  if (types.includes("integration")) cases.push(...integrationTests(fact, context, methods));
  if (types.includes("performance")) cases.push(...performanceTests(fact, context));
  if (types.includes("security")) cases.push(...securityTests(fact, context));
  return cases;
}
