import type { z } from "zod";
import type { RouteSchemas } from "../contracts/route.js";
import { schemaError } from "../errors/server-errors.js";
import { ServerValidationError, type ValidationIssue } from "../errors/server-errors.js";

function issuesOf(error: z.ZodError, location: string, input: unknown): ValidationIssue[] {
  return error.issues.slice(0, 50).map((issue) => {
    const field = [location, ...issue.path.map(String)].join(".");
    let value: unknown = input;
    for (const key of issue.path) {
      value =
        value && typeof value === "object" && Object.hasOwn(value, key as PropertyKey)
          ? (value as Record<PropertyKey, unknown>)[key as PropertyKey]
          : undefined;
    }
    // ServerValidationError keeps only short primitives of `value`.
    return value === undefined ? { field, message: issue.message } : { field, message: issue.message, value };
  });
}

/**
 * Validates params, query and body against a route's zod schemas and returns the parsed
 * values; one 400 lists every failing field of all three (at most 50). A schema that throws
 * instead of reporting (a broken refinement) is the route's fault: 500 `SCHEMA_ERROR`.
 */
export function validateRequest(
  schemas: RouteSchemas,
  input: { params: unknown; query: unknown; body: unknown },
): { params?: unknown; query?: unknown; body?: unknown } {
  const issues: ValidationIssue[] = [];
  const output: { params?: unknown; query?: unknown; body?: unknown } = {};
  for (const location of ["params", "query", "body"] as const) {
    const schema = schemas[location];
    if (!schema) continue;
    let result: ReturnType<z.ZodType["safeParse"]>;
    try {
      result = schema.safeParse(input[location]);
    } catch (error) {
      throw schemaError(`The route's ${location} schema failed to run`, { location }, error);
    }
    if (result.success) output[location] = result.data;
    else issues.push(...issuesOf(result.error, location, input[location]));
  }
  if (issues.length > 0) throw new ServerValidationError("Request validation failed", issues);
  return output;
}
