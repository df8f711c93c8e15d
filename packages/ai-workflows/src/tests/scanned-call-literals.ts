/**
 * How a function found by the signature scanner is called in generated Python, Ruby or Go tests:
 * a typical literal for each parameter and the call expression. Kept apart from the checks and
 * the test writers, which only decide what to call with which argument.
 */
import type { FunctionFact, ParameterFact } from "../code/function-facts.js";
import type { ScannedLanguage } from "./signature-scanner.js";

/** The kind of value a parameter takes, from its declared type or else its name. */
export type Shape = "number" | "float" | "string" | "boolean" | "array" | "object" | "none";

/** The shape of `param`: its declared type first, else a guess from its name (Go gets its zero value). */
export function shapeOf(param: ParameterFact, language: ScannedLanguage): Shape {
  const type = (param.type ?? "")
    .replace(/^Optional\[(.*)\]$/, "$1")
    .replace(/\s*\|\s*None$/, "")
    .trim();
  if (/^(int|int\d*|uint\d*|byte|rune)$/.test(type)) return "number";
  if (/^(float|float\d*|Decimal)$/.test(type)) return "float";
  if (/^(str|string)$/.test(type)) return "string";
  if (/^(bool)$/.test(type)) return "boolean";
  if (/^(\[\]|list|List|Sequence|tuple|Iterable)/.test(type)) return "array";
  if (/^(dict|Dict|Mapping|map\[)/.test(type)) return "object";
  if (type !== "" && language === "go") return "none";
  if (/(count|^n$|num|index|size|length|amount|age|limit|^[xyzab]$)$/i.test(param.name)) return "number";
  if (/(name|text|str|message|title|key|path|url|email|query|word)$/i.test(param.name)) return "string";
  if (/^(is|has|should)_?/i.test(param.name)) return "boolean";
  if (/(items|list|values|numbers)$/i.test(param.name)) return "array";
  return language === "go" ? "none" : "number";
}

const LITERALS: Record<ScannedLanguage, Record<Shape, (param: ParameterFact, position: number) => string>> = {
  python: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "True",
    array: () => "[1, 2, 3]",
    object: () => "{}",
    none: () => "None",
  },
  ruby: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "true",
    array: () => "[1, 2, 3]",
    object: () => "{}",
    none: () => "nil",
  },
  go: {
    number: (_p, i) => String(i + 2),
    float: (_p, i) => `${i + 2}.5`,
    string: (p) => JSON.stringify(`${p.name}-value`),
    boolean: () => "true",
    array: (p) => `${p.type ?? "[]int"}{}`,
    object: (p) => `${p.type ?? "map[string]int"}{}`,
    none: (p) => (/^\*|^func|^interface|^map|^chan|^error$|^any$/.test(p.type ?? "") ? "nil" : `*new(${p.type})`),
  },
};

/** A literal for `param` in `language`: `value` when given, else a typical value of its shape. */
export function literal(param: ParameterFact, position: number, language: ScannedLanguage, value?: number | string): string {
  if (value !== undefined) return typeof value === "number" ? String(value) : JSON.stringify(value);
  return LITERALS[language][shapeOf(param, language)](param, position);
}

/** The argument list of a call with typical values, one argument replaced by `replace.code` when given. */
export function args(fact: FunctionFact, language: ScannedLanguage, replace?: { index: number; code: string }): string {
  return fact.params
    .filter((param) => !param.rest && (language === "go" || param.defaultValue === null || replace?.index === fact.params.indexOf(param)))
    .map((param) =>
      replace && fact.params.indexOf(param) === replace.index ? replace.code : literal(param, fact.params.indexOf(param), language),
    )
    .join(", ");
}

/** The call expression of a function, method or constructor in `language`. */
export function callOf(fact: FunctionFact, language: ScannedLanguage, argumentList: string): string {
  if (fact.kind === "class") return language === "ruby" ? `${fact.name}.new` : `${fact.name}()`;
  if (fact.kind === "method") {
    if (language === "go") return `new(${fact.className}).${fact.name}(${argumentList})`;
    if (language === "ruby")
      return fact.isStatic ? `${fact.className}.${fact.name}(${argumentList})` : `${fact.className}.new.${fact.name}(${argumentList})`;
    return `${fact.className}().${fact.name}(${argumentList})`;
  }
  return `${fact.name}(${argumentList})`;
}
