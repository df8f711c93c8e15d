/**
 * The building blocks every kind of generated JavaScript/TypeScript test shares: the context
 * (assertion style, import names), argument lists, call expressions and the `it` block. Kept
 * apart so each test kind (unit, edge cases, …) lives in its own module on top of them.
 */
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase, TestType } from "../schemas/generate-test-cases-schema.js";
import type { AssertionStyle } from "./assertion-style.js";
import { type TestValue, typicalValue } from "./test-values.js";

/** What every JS test writer needs: the assertion style, the language and how functions are named. */
export interface JsCaseContext {
  style: AssertionStyle;
  typescript: boolean;
  /** How the tests refer to a top-level function or class (its import name). */
  importName(fact: FunctionFact): string;
  /** Top-level facts by name (for constructors and integration). */
  byName: Map<string, FunctionFact>;
  /** JSDoc example lines that are valid code (see `validExamples`). */
  validExamples: Set<string>;
}

/** A value as code; a deliberate type violation is cast in TypeScript so the test still compiles. */
function render(value: TestValue, context: JsCaseContext): string {
  return value.violatesType && context.typescript ? `(${value.code} as never)` : value.code;
}

/** The argument list with typical values, one of them replaced when `replace` is given. */
export function argumentsOf(fact: FunctionFact, context: JsCaseContext, replace?: { index: number; value: TestValue }): string {
  return fact.params
    .map((param, index) => (replace && replace.index === index ? replace.value : typicalValue(param, index)))
    .map((value) => render(value, context))
    .join(", ");
}

/** The call expression of a function, method (on a fresh instance) or constructor. */
export function callOf(fact: FunctionFact, context: JsCaseContext, args: string): string {
  if (fact.kind === "class") return `new ${context.importName(fact)}(${args})`;
  if (fact.kind === "method") {
    const owner = context.byName.get(fact.className ?? "");
    const className = owner ? context.importName(owner) : (fact.className ?? "Unknown");
    if (fact.isStatic) return `${className}.${fact.name}(${args})`;
    return `new ${className}(${owner ? argumentsOf(owner, context) : ""}).${fact.name}(${args})`;
  }
  return `${context.importName(fact)}(${args})`;
}

/** An `it(...)` block, async when the function is or the body awaits. */
export function testBlock(name: string, body: string[], isAsync: boolean): string {
  const asyncBody = isAsync || body.some((line) => line.includes("await "));
  return `it(${JSON.stringify(name)}, ${asyncBody ? "async " : ""}() => {\n${body.map((line) => `  ${line}`).join("\n")}\n});`;
}

/** A `TestCase` of `fact` (methods named `Class.method`). */
export function testCase(fact: FunctionFact, type: TestType, name: string, description: string, code: string): TestCase {
  return { name, functionName: fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name, type, description, code };
}
