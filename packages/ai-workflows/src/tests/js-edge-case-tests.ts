/**
 * Edge-case tests of one JS/TS function: both sides of each condition it tests, then type
 * boundaries where it never throws on purpose (at most `MAX_EDGE_CASES`).
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase } from "../schemas/generate-test-cases-schema.js";
import { type JsCaseContext, argumentsOf, callOf, testBlock, testCase } from "./js-case-context.js";
import { conditionValues, edgeValues } from "./test-values.js";

const MAX_EDGE_CASES = 8;

/** Edge-case tests of `fact`: condition boundaries first, then type boundaries. */
export function edgeCaseTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
  if (fact.kind === "class") return [];
  const { style } = context;
  const label = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
  const cases: TestCase[] = [];
  const seen = new Set<string>();
  for (const condition of fact.conditions) {
    const index = fact.params.findIndex((param) => param.name === condition.param);
    const param = fact.params[index];
    if (!param) continue;
    const values = conditionValues(condition, param);
    if (!values) continue;
    for (const [side, value] of [
      ["holds", values.holds],
      ["fails", values.fails],
    ] as const) {
      const call = callOf(fact, context, argumentsOf(fact, context, { index, value }));
      if (seen.has(call)) continue;
      seen.add(call);
      const throws = condition.throws && side === "holds";
      const name = throws ? `${label} throws when ${param.name} is ${value.label}` : `${label} accepts ${param.name} = ${value.label}`;
      const description = `Boundary of the condition on line ${condition.line}${condition.throws ? " (its branch throws)" : ""}.`;
      const assertion = throws ? style.throws(call, fact.async) : style.doesNotThrow(call, fact.async);
      cases.push(testCase(fact, "edge-cases", name, description, testBlock(name, [assertion], fact.async)));
    }
  }
  // Type boundaries are safe to assert only where the function never throws on purpose.
  if (!fact.throws) {
    for (const [index, param] of fact.params.entries()) {
      for (const value of edgeValues(param)) {
        const call = callOf(fact, context, argumentsOf(fact, context, { index, value }));
        if (seen.has(call)) continue;
        seen.add(call);
        const name = `${label} copes with ${value.label} as ${param.name}`;
        cases.push(
          testCase(
            fact,
            "edge-cases",
            name,
            `${label} has no throw statement, so ${value.label} must not make it fail.`,
            testBlock(name, [style.doesNotThrow(call, fact.async)], fact.async),
          ),
        );
      }
    }
  }
  return cases.slice(0, MAX_EDGE_CASES);
}
