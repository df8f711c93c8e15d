/**
 * Expectations read from a function's JSDoc `@example` lines (`add(2, 3); // => 5`), kept only
 * when they are valid code. Kept apart from the unit tests that use them: the parsing rules and
 * the one-parse-per-module shortcut belong together.
 */
import { parsesCleanly } from "../code/parse-code.js";
import type { FunctionFact } from "../code/function-facts.js";
import type { JsCaseContext } from "./js-case-context.js";

/** `add(2, 3); // => 5` lines of a function's JSDoc examples: call and expected value. */
export function exampleCandidates(fact: FunctionFact): Array<{ call: string; expected: string }> {
  const candidates: Array<{ call: string; expected: string }> = [];
  for (const example of fact.jsdoc?.examples ?? []) {
    for (const line of example.split("\n")) {
      const match = /^\s*(?:await\s+)?(.+?);?\s*\/\/\s*(?:=>|→|->|returns?:?|=)?\s*(.+?)\s*$/.exec(line);
      if (!match) continue;
      const [, call, expected] = match as unknown as [string, string, string];
      if (call.includes(`${fact.name}(`)) candidates.push({ call, expected });
    }
  }
  return candidates.slice(0, 5);
}

const exampleSource = (item: { call: string; expected: string }) => `(${item.call});\n(${item.expected});`;

/**
 * The examples that are valid code, checked with one parse for the whole module in the usual
 * case where all are (a parse per example would cost more than the rest of the generation).
 */
export function validExamples(facts: FunctionFact[]): Set<string> {
  const all = facts.flatMap(exampleCandidates);
  if (all.length === 0 || parsesCleanly(all.map(exampleSource).join("\n"))) return new Set(all.map(exampleSource));
  return new Set(all.filter((item) => parsesCleanly(exampleSource(item))).map(exampleSource));
}

/** The example lines of `fact` that parsed as code (see `validExamples`). */
export function exampleExpectations(fact: FunctionFact, context: JsCaseContext): Array<{ call: string; expected: string }> {
  return exampleCandidates(fact).filter((item) => context.validExamples.has(exampleSource(item)));
}
