import type { z } from "zod";
import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { ServerValidationError, type ValidationIssue } from "../../errors/server-errors.js";
import { type ValidationSchema, validateWithSchema } from "./validation-schema.js";

/** A spec `ValidationSchema` or any zod schema. */
export type RequestSchema = ValidationSchema | z.ZodType;

export interface ValidationOptions {
  body?: RequestSchema;
  query?: RequestSchema;
  params?: RequestSchema;
  /** Header names in lower case; headers are checked, never rewritten. */
  headers?: RequestSchema;
  /** Message of the 400 envelope (default `Request validation failed`). */
  message?: string;
  order?: number;
}

function isZodSchema(schema: RequestSchema): schema is z.ZodType {
  return typeof (schema as { safeParse?: unknown }).safeParse === "function";
}

function check(input: unknown, schema: RequestSchema, source: string): { value: unknown; issues: ValidationIssue[] } {
  if (!isZodSchema(schema)) return validateWithSchema(input, schema, { source, coerce: source !== "body" });
  const result = schema.safeParse(input);
  if (result.success) return { value: result.data, issues: [] };
  return {
    value: input,
    issues: result.error.issues.map((issue) => {
      const field = [source, ...issue.path.map(String)].join(".");
      const value = issue.path.reduce<unknown>(
        (current, key) => (current as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey],
        input,
      );
      return value === undefined ? { field, message: issue.message } : { field, message: issue.message, value };
    }),
  };
}

/**
 * Validates body, query, path params and headers before the handler; all failing fields
 * of all parts are reported together as 400 `VALIDATION_ERROR` with
 * `details.errors: [{field, message, value?}]`. Valid input replaces `ctx.body`,
 * `ctx.query` and `ctx.params` with defaults applied and text values coerced.
 *
 * @example
 * defineRoute({
 *   method: "GET", path: "/items",
 *   middleware: [createValidationMiddleware({ query: validationSchemas.pagination })],
 *   handler: (ctx) => list(ctx.query.page, ctx.query.limit),
 * });
 */
export function createValidationMiddleware(options: ValidationOptions): MiddlewareDefinition {
  return {
    name: "validation",
    order: options.order ?? 50,
    handler: async (ctx: ServerContext, next) => {
      const issues: ValidationIssue[] = [];
      const results: Record<string, unknown> = {};
      if (options.params) {
        const result = check(ctx.params, options.params, "params");
        issues.push(...result.issues);
        results.params = result.value;
      }
      if (options.query) {
        const result = check(ctx.query, options.query, "query");
        issues.push(...result.issues);
        results.query = result.value;
      }
      if (options.headers) issues.push(...check({ ...ctx.headers }, options.headers, "headers").issues);
      if (options.body) {
        const result = check(await ctx.readBody(), options.body, "body");
        issues.push(...result.issues);
        results.body = result.value;
      }
      if (issues.length > 0) throw new ServerValidationError(options.message ?? "Request validation failed", issues);
      if ("params" in results) ctx.params = results.params as Record<string, string>;
      if ("query" in results) ctx.query = results.query as Record<string, string>;
      if ("body" in results) ctx.body = results.body;
      await next();
    },
  };
}
