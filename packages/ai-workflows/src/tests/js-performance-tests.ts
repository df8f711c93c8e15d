/**
 * The performance test of one JS/TS function: a throughput guard with typical arguments.
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase } from "../schemas/generate-test-cases-schema.js";
import { type JsCaseContext, argumentsOf, callOf, testBlock, testCase } from "./js-case-context.js";

/** The performance test of `fact` (none for a class itself). */
export function performanceTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
  if (fact.kind === "class") return [];
  const label = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
  const runs = fact.async ? 1_000 : 10_000;
  const call = callOf(fact, context, argumentsOf(fact, context));
  const name = `${label} runs ${runs.toLocaleString("en-US")} times within 1 second`;
  const body = [
    "const started = performance.now();",
    `for (let run = 0; run < ${runs}; run++) {`,
    `  ${fact.async ? "await " : ""}${call};`,
    "}",
    context.style.lessThan("performance.now() - started", "1_000"),
  ];
  return [
    testCase(
      fact,
      "performance",
      name,
      "A regression guard on throughput with typical arguments; tune the budget to your machine.",
      testBlock(name, body, fact.async),
    ),
  ];
}
