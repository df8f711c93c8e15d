import { describe, expect, it } from "vitest";
import { compileValidationSchema, type ValidationSchema, validateWithSchema } from "./validation-schema.js";
import { validationSchemas } from "./validation-schemas.js";

describe("ValidationSchema compiled to zod", () => {
  it("compiles a schema once per coercion mode", () => {
    const first = compileValidationSchema(validationSchemas.pagination, { coerce: true });
    expect(compileValidationSchema(validationSchemas.pagination, { coerce: true })).toBe(first);
    expect(compileValidationSchema(validationSchemas.pagination, { coerce: false })).not.toBe(first);
    expect(first.parse({ limit: "5" })).toEqual({ page: 1, limit: 5 });
  });

  it("echoes the coerced value, the extra key's value and a non-object input", () => {
    const strict: ValidationSchema = { properties: { n: { type: "number", maximum: 10 } }, additionalProperties: false };
    expect(validateWithSchema({ n: "50", extra: "x" }, strict, { source: "query", coerce: true }).issues).toEqual([
      { field: "query.n", message: "must be <= 10", value: 50 },
      { field: "query.extra", message: "is not allowed", value: "x" },
    ]);
    expect(validateWithSchema("text", strict, { source: "body", coerce: false }).issues).toEqual([
      { field: "body", message: "must be an object", value: "text" },
    ]);
    expect(validateWithSchema({ n: "1e999" }, strict, { source: "query", coerce: true }).issues[0]?.message).toBe("must be of type number");
  });

  it("keeps prototype keys as plain keys of a prototype-free value", () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","name":"n"}') as Record<string, unknown>;
    const { value, issues } = validateWithSchema(
      input,
      { required: ["toString"], properties: { name: { type: "string" } } },
      {
        source: "body",
        coerce: false,
      },
    );
    expect(issues).toEqual([{ field: "body.toString", message: "is required" }]);
    const valid = validateWithSchema(input, { properties: { name: { type: "string" } } }, { source: "body", coerce: false }).value;
    expect(Object.getPrototypeOf(valid)).toBeNull();
    expect(Object.keys(valid)).toEqual(["__proto__", "constructor", "name"]);
    expect(Object.getPrototypeOf(value)).toBeNull();
  });

  it("reports a throwing validate as its message, and every failing rule of one property", () => {
    const schema: ValidationSchema = {
      properties: {
        code: {
          type: "string",
          minLength: 4,
          pattern: "^\\d+$",
          enum: ["1234"],
          validate: () => {
            throw new Error("validator broke");
          },
        },
      },
    };
    expect(validateWithSchema({ code: "ab" }, schema, { source: "body", coerce: false }).issues.map((issue) => issue.message)).toEqual([
      "must have at least 4 characters",
      "must match ^\\d+$",
      "must be one of 1234",
      "validator broke",
    ]);
  });
});
