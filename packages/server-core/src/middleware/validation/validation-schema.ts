import { z } from "zod";
import type { ValidationIssue } from "../../errors/server-errors.js";
import { formatZodIssues } from "../../errors/zod-issues.js";

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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A missing value says "is required"; any other value of the wrong type names the type. */
const typeError = (type: PropertyType) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required" : `must be of type ${type}`;

function typed(property: PropertySchema): z.ZodType {
  const error = typeError(property.type);
  switch (property.type) {
    case "string": {
      let schema = z.string({ error });
      if (property.minLength !== undefined) schema = schema.min(property.minLength, `must have at least ${property.minLength} characters`);
      if (property.maxLength !== undefined) schema = schema.max(property.maxLength, `must have at most ${property.maxLength} characters`);
      if (property.pattern !== undefined) schema = schema.regex(new RegExp(property.pattern), `must match ${property.pattern}`);
      return schema;
    }
    case "number": {
      // zod's number refuses NaN and ±Infinity, as docs/spec.md's `number` does.
      let schema = z.number({ error });
      if (property.minimum !== undefined) schema = schema.gte(property.minimum, `must be >= ${property.minimum}`);
      if (property.maximum !== undefined) schema = schema.lte(property.maximum, `must be <= ${property.maximum}`);
      return schema;
    }
    case "array": {
      let schema = z.array(z.unknown(), { error });
      if (property.minItems !== undefined) schema = schema.min(property.minItems, `must have at least ${property.minItems} items`);
      if (property.maxItems !== undefined) schema = schema.max(property.maxItems, `must have at most ${property.maxItems} items`);
      return schema;
    }
    case "boolean":
      return z.boolean({ error });
    case "object":
      // Kept as given (a record schema would copy it and drop a `__proto__` key).
      return z.custom<Record<string, unknown>>(isRecord, { error });
  }
}

/** Text inputs carry every value as a string (or a list for a repeated key). */
function coerced(value: unknown, type: PropertyType): unknown {
  if (value === undefined) return value;
  if (type === "array") return Array.isArray(value) ? value : [value];
  if (typeof value !== "string") return value;
  if (type === "number" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** One property: its type and every rule of it; the enum and `validate` run even when a length rule failed. */
function propertySchema(property: PropertySchema, required: boolean, coerce: boolean): z.ZodType {
  let schema = typed(property);
  const allowed = property.enum;
  if (allowed !== undefined) schema = schema.refine((value) => allowed.includes(value), `must be one of ${allowed.map(String).join(", ")}`);
  const validate = property.validate;
  if (validate) {
    schema = schema.superRefine((value, context) => {
      let verdict: boolean | string;
      try {
        verdict = validate(value);
      } catch (error) {
        verdict = error instanceof Error ? error.message : "is invalid";
      }
      if (verdict !== true) context.addIssue({ code: "custom", message: typeof verdict === "string" ? verdict : "is invalid" });
    });
  }
  if (coerce) schema = z.preprocess((value) => coerced(value, property.type), schema);
  const fallback = property.default;
  if (fallback !== undefined) return schema.default(() => structuredClone(fallback));
  return required ? schema : schema.optional();
}

const compiledSchemas = new WeakMap<ValidationSchema, Map<boolean, z.ZodType>>();

/**
 * The zod schema a `ValidationSchema` stands for, built once per schema object and coercion
 * mode (a schema is read when first compiled: change a copy, not the original).
 * Every message is the validation engine's of docs/spec.md (`must be <= 100`, `is required`, `is not allowed`).
 *
 * @example
 * const query = compileValidationSchema(validationSchemas.pagination, { coerce: true });
 * query.parse({ limit: "5" }); // { limit: 5, page: 1 }
 */
export function compileValidationSchema(schema: ValidationSchema, options: { coerce: boolean }): z.ZodType<Record<string, unknown>> {
  const byMode = compiledSchemas.get(schema) ?? new Map<boolean, z.ZodType>();
  const cached = byMode.get(options.coerce);
  if (cached) return cached as z.ZodType<Record<string, unknown>>;
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) shape[name] = z.unknown().refine((value) => value !== undefined, "is required");
  }
  for (const [name, property] of Object.entries(properties)) shape[name] = propertySchema(property, required.has(name), options.coerce);
  const object = z.object(shape, { error: "must be an object" });
  const compiled = schema.additionalProperties === false ? object.catchall(z.never()) : object.catchall(z.unknown());
  compiledSchemas.set(schema, byMode.set(options.coerce, compiled));
  return compiled as z.ZodType<Record<string, unknown>>;
}

/** A refused input as far as it goes: defaults filled in, text values coerced (zod returns no data on failure). */
function withDefaults(record: Record<string, unknown>, schema: ValidationSchema, coerce: boolean): Record<string, unknown> {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (record[name] === undefined && property.default !== undefined) record[name] = structuredClone(property.default);
    else if (coerce && record[name] !== undefined) record[name] = coerced(record[name], property.type);
  }
  return record;
}

/** What `validateWithSchema` returns. */
export interface SchemaValidation {
  value: Record<string, unknown>;
  issues: ValidationIssue[];
}

/**
 * The check of one `ValidationSchema`, compiled to zod now (a route compiles its schemas
 * when it is defined, not per request).
 *
 * @example
 * const checkQuery = schemaValidator(validationSchemas.pagination, { source: "query", coerce: true });
 * checkQuery({ limit: "500" }).issues; // [{ field: "query.limit", message: "must be <= 100", value: 500 }]
 */
export function schemaValidator(schema: ValidationSchema, check: SchemaCheck): (input: unknown) => SchemaValidation {
  const compiled = compileValidationSchema(schema, check);
  return (input) => {
    // Prototype-free copy: a client's `constructor` or `__proto__` key is a plain key, and a
    // required `toString` is not satisfied by Object.prototype's.
    const record = isRecord(input) ? Object.assign(Object.create(null) as Record<string, unknown>, input) : (input ?? Object.create(null));
    const result = compiled.safeParse(record, { reportInput: true });
    if (!result.success) {
      const issues = formatZodIssues(result.error, { root: check.source, unknownKeys: "each", unknownKeyMessage: "is not allowed" });
      return { value: isRecord(record) ? withDefaults(record, schema, check.coerce) : {}, issues };
    }
    // zod's output is a plain object without a `__proto__` key: the values go back onto the prototype-free copy.
    return { value: Object.assign(record as Record<string, unknown>, result.data), issues: [] };
  };
}

/**
 * Checks an object against a `ValidationSchema` (compiled to zod once per schema), listing every
 * failing field and returning a copy with defaults (and, for text inputs, coerced types) applied.
 *
 * @example
 * validateWithSchema({ limit: "500" }, validationSchemas.pagination, { source: "query", coerce: true });
 * // → { value: { page: 1, limit: 500 }, issues: [{ field: "query.limit", message: "must be <= 100", value: 500 }] }
 */
export function validateWithSchema(input: unknown, schema: ValidationSchema, check: SchemaCheck): SchemaValidation {
  return schemaValidator(schema, check)(input);
}
