/**
 * Integration tests: a class's instance methods in order on one instance, or a function run
 * through the module's own functions it calls (no mocks).
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase } from "../schemas/generate-test-cases-schema.js";
import { type JsCaseContext, argumentsOf, callOf, testBlock, testCase } from "./js-case-context.js";

/** Integration tests of `fact`, with `methods` the module's methods. */
export function integrationTests(fact: FunctionFact, context: JsCaseContext, methods: FunctionFact[]): TestCase[] {
  const { style } = context;
  if (fact.kind === "class") {
    const instanceMethods = methods.filter((method) => method.className === fact.name && !method.isStatic);
    if (instanceMethods.length < 2) return [];
    const anyAsync = instanceMethods.some((method) => method.async);
    const steps = instanceMethods.map(
      (method) => `${method.async ? "await " : ""}instance.${method.name}(${argumentsOf(method, context)});`,
    );
    const name = `${fact.name} methods work together on one instance`;
    const body = [
      `const instance = new ${context.importName(fact)}(${argumentsOf(fact, context)});`,
      ...steps,
      style.isInstance("instance", context.importName(fact)),
    ];
    return [
      testCase(
        fact,
        "integration",
        name,
        `Calls ${instanceMethods.map((method) => method.name).join(", ")} in order on the same instance.`,
        testBlock(name, body, anyAsync),
      ),
    ];
  }
  if (fact.calls.length === 0 || fact.kind === "method") return [];
  const name = `${fact.name} works with ${fact.calls.join(", ")}`;
  const call = callOf(fact, context, argumentsOf(fact, context));
  const body = [
    `const result = ${fact.async ? "await " : ""}${call};`,
    fact.returnsValue ? style.isDefined("result") : style.equals("result", "undefined"),
  ];
  return [
    testCase(
      fact,
      "integration",
      name,
      `Runs ${fact.name} through the module's own ${fact.calls.join(", ")} (no mocks).`,
      testBlock(name, body, fact.async),
    ),
  ];
}
