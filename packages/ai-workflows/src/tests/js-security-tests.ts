/**
 * Security tests of one JS/TS function: hostile strings through its first string parameter
 * and a prototype-pollution payload through its first object parameter.
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase } from "../schemas/generate-test-cases-schema.js";
import { type JsCaseContext, argumentsOf, callOf, testBlock, testCase } from "./js-case-context.js";
import { shapeOf } from "./test-values.js";

const HOSTILE_STRINGS = [
  "<script>alert(1)</script>",
  "' OR '1'='1' --",
  "../../../etc/passwd",
  "__proto__",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  "{{7*7}}${7*7}",
  "\u0000\r\nX-Injected: 1",
];

/** Security tests of `fact` (none for a class itself). */
export function securityTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
  if (fact.kind === "class") return [];
  const { style } = context;
  const label = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
  const cases: TestCase[] = [];
  const polluted = `Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")`;
  const stringIndex = fact.params.findIndex((param) => shapeOf(param) === "string");
  if (stringIndex >= 0) {
    const payload = { code: "payload", label: "payload" };
    const call = callOf(fact, context, argumentsOf(fact, context, { index: stringIndex, value: payload }));
    const name = `${label} handles hostile strings without side effects`;
    const body = [
      `for (const payload of ${JSON.stringify(HOSTILE_STRINGS)}) {`,
      "  try {",
      `    ${fact.async ? "await " : ""}${call};`,
      "  } catch (error) {",
      `    ${style.isInstance("error", "Error")}`,
      "  }",
      "}",
      style.isFalse(polluted),
    ];
    cases.push(
      testCase(
        fact,
        "security",
        name,
        "Injection-style strings either work or fail with an Error, and never pollute Object.prototype.",
        testBlock(name, body, fact.async),
      ),
    );
  }
  const objectIndex = fact.params.findIndex((param) => shapeOf(param) === "object");
  if (objectIndex >= 0) {
    const value = {
      code: `JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}')`,
      label: "a prototype-pollution payload",
    };
    const call = callOf(fact, context, argumentsOf(fact, context, { index: objectIndex, value }));
    const name = `${label} is not open to prototype pollution`;
    const body = [
      "try {",
      `  ${fact.async ? "await " : ""}${call};`,
      "} catch {",
      "  // refusing the payload is fine",
      "}",
      style.isFalse(polluted),
    ];
    cases.push(
      testCase(
        fact,
        "security",
        name,
        "A JSON payload with __proto__ and constructor keys must not reach Object.prototype.",
        testBlock(name, body, fact.async),
      ),
    );
  }
  return cases;
}
