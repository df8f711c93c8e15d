import type { z } from "zod";
import type { RouteSchemas } from "../contracts/route.js";
import { ServerValidationError, type ValidationIssue } from "../errors/server-errors.js";

function issuesOf(error: z.ZodError, location: string, input: unknown): ValidationIssue[] {
  return error.issues.map((issue) => {
    const field = [location, ...issue.path.map(String)].join(".");
    let value: unknown = input;
    for (const key of issue.path) value = value && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined;
    return value === undefined ? { field, message: issue.message } : { field, message: issue.message, value };
  });
}

/**
 * Validates params, query and body against a route's zod schemas and returns the parsed
 * values; one 400 lists every failing field of all three.
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
    const result = schema.safeParse(input[location]);
    if (result.success) output[location] = result.data;
    else issues.push(...issuesOf(result.error, location, input[location]));
  }
  if (issues.length > 0) throw new ServerValidationError("Request validation failed", issues);
  return output;
}
