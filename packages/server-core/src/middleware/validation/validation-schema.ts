import type { ValidationIssue } from "../../errors/server-errors.js";

export type PropertyType = "string" | "number" | "boolean" | "object" | "array";

/** The spec's `PropertySchema`. */
export interface PropertySchema {
  type: PropertyType;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  /** A regular expression source the whole string must match. */
  pattern?: string;
  enum?: readonly unknown[];
  /** Filled in when the property is absent. */
  default?: unknown;
  /** `true` = valid; `false` or a message = invalid. */
  validate?: (value: unknown) => boolean | string;
}

/** The spec's `ValidationSchema`. */
export interface ValidationSchema {
  required?: string[];
  properties?: Record<string, PropertySchema>;
  /** `false` rejects properties not listed (default true). */
  additionalProperties?: boolean;
}

export interface SchemaCheck {
  /** Prefix of every `field` (`body`, `query`, `params`, `headers`). */
  source: string;
  /** Text inputs (query, params, headers): convert `"5"` → 5, `"true"` → true, one value → [value]. */
  coerce: boolean;
}

const patterns = new Map<string, RegExp>();

function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern);
    patterns.set(pattern, regex);
  }
  return regex;
}

function coerceValue(value: unknown, type: PropertyType): unknown {
  if (type === "array") return Array.isArray(value) ? value : [value];
  if (typeof value !== "string") return value;
  if (type === "number" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value;
}

/** Every failure of one property, not just the first. */
function checkProperty(value: unknown, schema: PropertySchema, field: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const fail = (message: string) => issues.push({ field, message, value });
  const actual = typeOf(value);
  if (actual !== schema.type || (schema.type === "number" && !Number.isFinite(value))) {
    fail(`must be of type ${schema.type}`);
    return issues;
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`must be >= ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`must be <= ${schema.maximum}`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) fail(`must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) fail(`must have at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined && !compiled(schema.pattern).test(value)) fail(`must match ${schema.pattern}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`must have at most ${schema.maxItems} items`);
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) fail(`must be one of ${schema.enum.map(String).join(", ")}`);
  if (schema.validate) {
    let verdict: boolean | string;
    try {
      verdict = schema.validate(value);
    } catch (error) {
      verdict = error instanceof Error ? error.message : "is invalid";
    }
    if (verdict !== true) fail(typeof verdict === "string" ? verdict : "is invalid");
  }
  return issues;
}

/**
 * Checks an object against a `ValidationSchema`, listing every failing field and
 * returning a copy with defaults (and, for text inputs, coerced types) applied.
 *
 * @example
 * validateWithSchema({ limit: "500" }, paginationSchema, { source: "query", coerce: true });
 * // → { value: { page: 1, limit: 500 }, issues: [{ field: "query.limit", message: "must be <= 100", value: 500 }] }
 */
export function validateWithSchema(
  input: unknown,
  schema: ValidationSchema,
  check: SchemaCheck,
): { value: Record<string, unknown>; issues: ValidationIssue[] } {
  if (input === undefined || input === null) input = {};
  if (typeOf(input) !== "object") return { value: {}, issues: [{ field: check.source, message: "must be an object", value: input }] };
  // Prototype-free copy: a client's `constructor` or `__proto__` key is a plain key, and a
  // required `toString` is not satisfied by Object.prototype's.
  const value = Object.assign(Object.create(null) as Record<string, unknown>, input as Record<string, unknown>);
  const issues: ValidationIssue[] = [];
  const properties = schema.properties ?? {};
  const field = (name: string) => `${check.source}.${name}`;
  for (const name of schema.required ?? []) {
    if (value[name] === undefined && (Object.hasOwn(properties, name) ? properties[name]?.default : undefined) === undefined)
      issues.push({ field: field(name), message: "is required" });
  }
  for (const [name, property] of Object.entries(properties)) {
    if (value[name] === undefined) {
      if (property.default !== undefined) value[name] = structuredClone(property.default);
      continue;
    }
    if (check.coerce) value[name] = coerceValue(value[name], property.type);
    issues.push(...checkProperty(value[name], property, field(name)));
  }
  if (schema.additionalProperties === false) {
    for (const name of Object.keys(value)) {
      if (!Object.hasOwn(properties, name)) issues.push({ field: field(name), message: "is not allowed", value: value[name] });
    }
  }
  return { value, issues };
}
