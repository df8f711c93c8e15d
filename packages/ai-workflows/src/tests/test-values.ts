import type { ParamCondition } from "../code/conditions.js";
import type { ParameterFact } from "../code/function-facts.js";

/** A value to pass in a test, as source code; `violatesType` marks values outside the declared type. */
export interface TestValue {
  code: string;
  label: string;
  violatesType?: boolean;
}

type Shape = "number" | "string" | "boolean" | "array" | "object" | "function" | "unknown";

const NAME_SHAPES: Array<[RegExp, Shape]> = [
  [/^(is|has|should|can|enable|disable|allow)[A-Z_]|^(flag|enabled|disabled|verbose|strict|force)$/i, "boolean"],
  [/(items|list|values|array|arr|numbers|entries|rows|elements|ids|names)$/i, "array"],
  [
    /(count|^n$|num|index|idx|size|length|amount|age|price|total|limit|offset|max|min|^[xyzab]$|width|height|^ms$|Ms$|seconds|rate|ratio|score|level|port)$/i,
    "number",
  ],
  [
    /(name|text|str|string|message|title|label|id|key|path|url|uri|email|query|prefix|suffix|word|token|slug|code|input|content)$/i,
    "string",
  ],
  [/(options|config|opts|settings|params|props|context|ctx|data|payload|body|record|object|obj|user|request)$/i, "object"],
  [/(callback|^fn$|handler|^cb$|listener|predicate|compare|mapper|reducer)$/i, "function"],
];

/** The kind of value a parameter takes: its annotation, its default, else what its name suggests. */
export function shapeOf(param: ParameterFact): Shape {
  const type = (param.type ?? "").replace(/\s*\|\s*(undefined|null)\b/g, "").trim();
  if (/^(number|bigint)$/.test(type)) return "number";
  if (/^string$|^"|^'/.test(type)) return "string";
  if (type === "boolean") return "boolean";
  if (/\[\]$|^Array<|^ReadonlyArray<|^readonly /.test(type)) return "array";
  if (/=>|^Function$/.test(type)) return "function";
  if (/^\{|^Record<|^object$|^Partial<|^[A-Z]\w*(Options|Config|Settings|Props)$/.test(type)) return "object";
  for (const [pattern, shape] of NAME_SHAPES) if (pattern.test(param.name)) return shape;
  return "unknown";
}

/** A typical, valid value for a parameter (the n-th parameter gets distinct numbers). */
export function typicalValue(param: ParameterFact, position: number): TestValue {
  if (param.defaultValue !== null && param.defaultValue.length < 80) return { code: param.defaultValue, label: "its default" };
  const type = param.type ?? "";
  switch (shapeOf(param)) {
    case "number":
      return { code: String(position + 2), label: String(position + 2) };
    case "string": {
      const literal = /^\s*(["'])([^"']*)\1/.exec(type);
      return literal
        ? { code: JSON.stringify(literal[2]), label: JSON.stringify(literal[2]) }
        : { code: JSON.stringify(`${param.name}-value`), label: "a string" };
    }
    case "boolean":
      return { code: "true", label: "true" };
    case "array":
      return /string/.test(type) ? { code: '["a", "b"]', label: "a small array" } : { code: "[1, 2, 3]", label: "a small array" };
    case "object":
      return { code: "{}", label: "an empty object" };
    case "function":
      return { code: "() => undefined", label: "a no-op function" };
    default:
      return { code: "1", label: "1" };
  }
}

/** Boundary and unusual values of a parameter's type. */
export function edgeValues(param: ParameterFact): TestValue[] {
  const values: TestValue[] = [];
  switch (shapeOf(param)) {
    case "number":
      values.push(
        { code: "0", label: "zero" },
        { code: "-1", label: "a negative number" },
        { code: "Number.MAX_SAFE_INTEGER", label: "the largest safe integer" },
        { code: "Number.NaN", label: "NaN" },
      );
      break;
    case "string":
      values.push(
        { code: '""', label: "an empty string" },
        { code: '"   "', label: "whitespace only" },
        { code: '"x".repeat(10_000)', label: "a 10,000-character string" },
        { code: '"ünïcödé 👋"', label: "non-ASCII text" },
      );
      break;
    case "array":
      values.push({ code: "[]", label: "an empty array" }, { code: "[0]", label: "a one-item array" });
      break;
    case "boolean":
      values.push({ code: "false", label: "false" });
      break;
    case "object":
      values.push({ code: "null", label: "null", violatesType: true });
      break;
    default:
      break;
  }
  if (param.optional && !param.rest) values.push({ code: "undefined", label: "undefined (omitted)" });
  return values;
}

function oppositeCompare(operator: string, value: number): [number, number] {
  // [a value for which `param operator value` holds, one for which it does not]
  switch (operator) {
    case "<":
      return [value - 1, value];
    case "<=":
      return [value, value + 1];
    case ">":
      return [value + 1, value];
    case ">=":
      return [value, value - 1];
    case "!=":
    case "!==":
      return [value + 1, value];
    default:
      return [value, value + 1];
  }
}

/** Two values for a branch condition: one that makes it hold and one that does not. */
export function conditionValues(condition: ParamCondition, param: ParameterFact): { holds: TestValue; fails: TestValue } | undefined {
  const shape = shapeOf(param);
  switch (condition.kind) {
    case "compare": {
      if (typeof condition.value === "number") {
        const [holds, fails] = oppositeCompare(condition.operator ?? "===", condition.value);
        return { holds: { code: String(holds), label: String(holds) }, fails: { code: String(fails), label: String(fails) } };
      }
      const text = String(condition.value);
      const equal = condition.operator === "===" || condition.operator === "==";
      const same = { code: JSON.stringify(text), label: JSON.stringify(text) };
      const other = { code: JSON.stringify(`${text}-other`), label: "another string" };
      return equal ? { holds: same, fails: other } : { holds: other, fails: same };
    }
    case "falsy": {
      const falsy = shape === "number" ? "0" : shape === "string" ? '""' : shape === "boolean" ? "false" : "null";
      return { holds: { code: falsy, label: falsy, violatesType: falsy === "null" && !param.optional }, fails: typicalValue(param, 0) };
    }
    case "null":
      return { holds: { code: "null", label: "null", violatesType: true }, fails: typicalValue(param, 0) };
    case "typeof": {
      const matching: Record<string, string> = {
        string: '"text"',
        number: "42",
        boolean: "true",
        object: "{}",
        function: "() => undefined",
        undefined: "undefined",
      };
      const wanted = matching[String(condition.value)] ?? "undefined";
      const otherCode = condition.value === "number" ? '"42"' : "42";
      const matches = { code: wanted, label: `a ${condition.value}` };
      const differs = { code: otherCode, label: `not a ${condition.value}`, violatesType: true };
      return condition.operator === "!==" || condition.operator === "!="
        ? { holds: differs, fails: matches }
        : { holds: matches, fails: differs };
    }
    case "length": {
      const [holds, fails] = oppositeCompare(condition.operator ?? "===", Number(condition.value));
      const make = (length: number) =>
        shape === "string"
          ? `"${"a".repeat(Math.max(0, Math.min(length, 1000)))}"`
          : `Array.from({ length: ${Math.max(0, Math.min(length, 100_000))} }, (_, index) => index)`;
      return {
        holds: { code: make(holds), label: `length ${Math.max(0, holds)}` },
        fails: { code: make(fails), label: `length ${Math.max(0, fails)}` },
      };
    }
    case "array":
      return { holds: { code: "[1, 2]", label: "an array" }, fails: { code: '"not an array"', label: "a non-array", violatesType: true } };
    case "nan":
      return { holds: { code: "Number.NaN", label: "NaN" }, fails: { code: "1", label: "1" } };
    default:
      return undefined;
  }
}
