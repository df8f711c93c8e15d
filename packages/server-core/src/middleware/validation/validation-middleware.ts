import type { z } from "zod";
import type { ServerContext } from "../../contracts/context.js";
import type { MiddlewareDefinition } from "../../contracts/middleware.js";
import { ServerValidationError, type ValidationIssue } from "../../errors/server-errors.js";
import { formatZodIssues } from "../../errors/zod-issues.js";
import { type ValidationSchema, schemaValidator } from "./validation-schema.js";

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

type Check = (input: unknown) => { value: unknown; issues: ValidationIssue[] };

/** One part's check, its `ValidationSchema` compiled to zod here, once per route. */
function checkOf(schema: RequestSchema, source: string): Check {
  if (!isZodSchema(schema)) return schemaValidator(schema, { source, coerce: source !== "body" });
  return (input) => {
    const result = schema.safeParse(input);
    if (result.success) return { value: result.data, issues: [] };
    return { value: input, issues: formatZodIssues(result.error, { root: source, input }) };
  };
}

/**
 * Validates body, query, path params and headers before the handler; all failing fields
 * of all parts are reported together as 400 `VALIDATION_ERROR` with
 * `details.errors: [{field, message, value?}]`. A spec `ValidationSchema` is compiled to zod
 * when the middleware is created, so a route pays for it once. Valid input replaces `ctx.body`,
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
  const [params, query, headers, body] = (["params", "query", "headers", "body"] as const).map((source) => {
    const schema = options[source];
    return schema === undefined ? undefined : checkOf(schema, source);
  });
  return {
    name: "validation",
    order: options.order ?? 50,
    handler: async (ctx: ServerContext, next) => {
      const issues: ValidationIssue[] = [];
      const results: Record<string, unknown> = {};
      if (params) {
        const result = params(ctx.params);
        issues.push(...result.issues);
        results.params = result.value;
      }
      if (query) {
        const result = query(ctx.query);
        issues.push(...result.issues);
        results.query = result.value;
      }
      if (headers) issues.push(...headers({ ...ctx.headers }).issues);
      if (body) {
        const result = body(await ctx.readBody());
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
