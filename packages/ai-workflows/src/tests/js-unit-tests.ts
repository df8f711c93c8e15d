/**
 * Unit tests of one JS/TS function: its JSDoc examples, then one call with typical input
 * checked against the declared return type (or a snapshot, or determinism).
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase } from "../schemas/generate-test-cases-schema.js";
import { type JsCaseContext, argumentsOf, callOf, testBlock, testCase } from "./js-case-context.js";
import { exampleExpectations } from "./js-example-expectations.js";

const PRIMITIVE_RETURN = /^(?:Promise<)?\s*(number|string|boolean|bigint)\s*>?$/;

/** Unit tests of `fact`: examples and typical input (a class: that it constructs). */
export function unitTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
  const { style } = context;
  const label = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
  const call = callOf(fact, context, argumentsOf(fact, context));
  const awaited = fact.async ? `await ${call}` : call;
  if (fact.kind === "class") {
    return [
      testCase(
        fact,
        "unit",
        `${label} can be constructed`,
        "Constructs the class with typical arguments.",
        testBlock(`${label} can be constructed`, [style.isInstance(call, context.importName(fact))], false),
      ),
    ];
  }
  const cases: TestCase[] = [];
  const examples = exampleExpectations(fact, context);
  if (examples.length > 0) {
    const body = examples.map((example) => style.equals(fact.async ? `await ${example.call}` : example.call, example.expected));
    cases.push(
      testCase(
        fact,
        "unit",
        `${label} returns what its examples show`,
        "Expectations taken from the @example lines of its JSDoc.",
        testBlock(`${label} returns what its examples show`, body, fact.async),
      ),
    );
  }
  const primitive = PRIMITIVE_RETURN.exec(fact.returnType ?? "")?.[1];
  const name = `${label} handles typical input`;
  const body: string[] = [`const result = ${awaited};`];
  let description = "Calls it with typical arguments";
  if (primitive) {
    body.push(style.typeIs("result", primitive));
    description += ` and checks the declared ${primitive} result.`;
  } else if (fact.returnsValue) {
    const snapshot = style.snapshot("result");
    // Without snapshots: the same input must give the same result (a determinism check).
    body.push(snapshot ?? style.equals("result", fact.async ? `await ${call}` : call));
    description += snapshot ? " and records its result (a snapshot to review)." : " and checks the same input gives the same result.";
  } else {
    body.push(style.equals("result", "undefined"));
    description += " (it returns nothing).";
  }
  cases.push(testCase(fact, "unit", name, description, testBlock(name, body, fact.async)));
  return cases;
}
