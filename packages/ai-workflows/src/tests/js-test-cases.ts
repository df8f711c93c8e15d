import { parsesCleanly } from "../code/parse-code.js";
import type { FunctionFact } from "../code/function-facts.js";
import type { TestCase, TestType } from "../schemas/generate-test-cases-schema.js";
import type { AssertionStyle } from "./assertion-style.js";
import { type TestValue, conditionValues, edgeValues, shapeOf, typicalValue } from "./test-values.js";

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

const PRIMITIVE_RETURN = /^(?:Promise<)?\s*(number|string|boolean|bigint)\s*>?$/;
const MAX_EDGE_CASES = 8;

function render(value: TestValue, context: JsCaseContext): string {
  return value.violatesType && context.typescript ? `(${value.code} as never)` : value.code;
}

function argumentsOf(fact: FunctionFact, context: JsCaseContext, replace?: { index: number; value: TestValue }): string {
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

function testBlock(name: string, body: string[], isAsync: boolean): string {
  const asyncBody = isAsync || body.some((line) => line.includes("await "));
  return `it(${JSON.stringify(name)}, ${asyncBody ? "async " : ""}() => {\n${body.map((line) => `  ${line}`).join("\n")}\n});`;
}

function testCase(fact: FunctionFact, type: TestType, name: string, description: string, code: string): TestCase {
  return { name, functionName: fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name, type, description, code };
}

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

function exampleExpectations(fact: FunctionFact, context: JsCaseContext): Array<{ call: string; expected: string }> {
  return exampleCandidates(fact).filter((item) => context.validExamples.has(exampleSource(item)));
}

function unitTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
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

function edgeCaseTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
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

const HOSTILE_STRINGS = [
  "<script>alert(1)</script>",
  "' OR '1'='1' --",
  "../../../etc/passwd",
  "__proto__",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  "{{7*7}}${7*7}",
  "\u0000\r\nX-Injected: 1",
];

function securityTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
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

function performanceTests(fact: FunctionFact, context: JsCaseContext): TestCase[] {
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

function integrationTests(fact: FunctionFact, context: JsCaseContext, methods: FunctionFact[]): TestCase[] {
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
