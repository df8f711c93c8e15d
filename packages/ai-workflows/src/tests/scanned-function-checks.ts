/**
 * What the generated tests of a Python, Ruby or Go function check, independent of the language
 * they are written in: typical input, the boundaries of its conditions, throughput, hostile
 * strings. The writers in `language-test-bodies.ts` turn each check into a test.
 */
import type { FunctionFact, ParameterFact } from "../code/function-facts.js";
import type { TestType } from "../schemas/generate-test-cases-schema.js";
import { args, callOf, literal, shapeOf } from "./scanned-call-literals.js";
import type { ScannedLanguage } from "./signature-scanner.js";

/** One generated test before it is written in a language: what it calls and what it expects. */
export interface Check {
  name: string;
  type: TestType;
  description: string;
  call: string;
  expect: "returns" | "raises" | "fast" | "hostile";
  resultType?: string;
}

/** The checks of `types` for one scanned function (none for a class itself). */
export function checksFor(fact: FunctionFact, language: ScannedLanguage, types: readonly TestType[]): Check[] {
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
