import type { z } from "zod";
import type { RouteSchemas } from "../../contracts/route.js";
import { schemaError } from "../../errors/server-errors.js";
import { ServerValidationError, type ValidationIssue } from "../../errors/server-errors.js";
import { formatZodIssues } from "../../errors/zod-issues.js";

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
    else issues.push(...formatZodIssues(result.error, { root: location, input: input[location], limit: 50 }));
  }
  if (issues.length > 0) throw new ServerValidationError("Request validation failed", issues);
  return output;
}
