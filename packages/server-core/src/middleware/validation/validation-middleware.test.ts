import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createTestApp } from "../../testing/test-kit.js";
import { createValidationMiddleware } from "./validation-middleware.js";
import { validateWithSchema } from "./validation-schema.js";
import { validationSchemas } from "./validation-schemas.js";

type Issues = { error: { code: string; details: { errors: Array<{ field: string; message: string; value?: unknown }> } } };

describe("validateWithSchema", () => {
  it("checks every rule and reports every failing field", () => {
    const { issues, value } = validateWithSchema(
      { name: "x", age: 200, tags: [], role: "root", code: "abc", extra: 1, nick: "bad" },
      {
        required: ["name", "email"],
        additionalProperties: false,
        properties: {
          name: { type: "string", minLength: 2, maxLength: 10 },
          email: { type: "string" },
          age: { type: "number", minimum: 0, maximum: 150 },
          tags: { type: "array", minItems: 1, maxItems: 3 },
          role: { type: "string", enum: ["user", "admin"] },
          code: { type: "string", pattern: "^\\d+$" },
          nick: { type: "string", validate: (nick) => nick !== "bad" || "is a bad nick" },
          active: { type: "boolean", default: true },
        },
      },
      { source: "body", coerce: false },
    );
    expect(issues.map((issue) => `${issue.field}: ${issue.message}`).sort()).toEqual(
      [
        "body.email: is required",
        "body.name: must have at least 2 characters",
        "body.age: must be <= 150",
        "body.tags: must have at least 1 items",
        "body.role: must be one of user, admin",
        "body.code: must match ^\\d+$",
        "body.nick: is a bad nick",
        "body.extra: is not allowed",
      ].sort(),
    );
    expect(value.active).toBe(true);
    expect(
      validateWithSchema({ n: "5" }, { properties: { n: { type: "number" } } }, { source: "body", coerce: false }).issues[0]?.message,
    ).toBe("must be of type number");
  });
});

describe("validation middleware", () => {
  const routes = [
    {
      method: "POST" as const,
      path: "/users/:id",
      middleware: [
        createValidationMiddleware({
          params: validationSchemas.idParam,
          query: validationSchemas.pagination,
          headers: { required: ["x-tenant"], properties: { "x-tenant": { type: "string", minLength: 2 } } },
          body: z.object({ email: z.email(), age: z.number().int().min(18) }),
        }),
      ],
      handler: (ctx: { params: unknown; query: unknown; body: unknown }) => ({ params: ctx.params, query: ctx.query, body: ctx.body }),
    },
  ];

  it("400 VALIDATION_ERROR listing every failing field of every part", async () => {
    const { request } = createTestApp({ routes });
    const response = await request({
      method: "POST",
      url: "/api/users/bad%20id?limit=500&page=0",
      body: JSON.stringify({ email: "nope", age: 12 }),
    });
    expect(response.status).toBe(400);
    const body = response.json<Issues>();
    expect(body.error.code).toBe("VALIDATION_ERROR");
    const fields = body.error.details.errors.map((issue) => issue.field).sort();
    expect(fields).toEqual(["body.age", "body.email", "headers.x-tenant", "params.id", "query.limit", "query.page"]);
    expect(body.error.details.errors.find((issue) => issue.field === "query.limit")?.value).toBe(500);
  });

  it("passes valid input on with defaults and coerced types", async () => {
    const { request } = createTestApp({ routes });
    const response = await request({
      method: "POST",
      url: "/api/users/u-1?page=3",
      headers: { "x-tenant": "acme" },
      body: JSON.stringify({ email: "a@b.co", age: 30 }),
    });
    expect(response.status).toBe(200);
    expect(response.json<{ data: unknown }>().data).toEqual({
      params: { id: "u-1" },
      query: { page: 3, limit: 20 },
      body: { email: "a@b.co", age: 30 },
    });
  });

  it("pre-built schemas: uuid, email, sorting, dateRange, search", () => {
    const check = (input: unknown, schema: Parameters<typeof validateWithSchema>[1]) =>
      validateWithSchema(input, schema, { source: "query", coerce: true }).issues.map((issue) => issue.field);
    const ids = { properties: { id: validationSchemas.uuid, mail: validationSchemas.email } };
    expect(check({ id: "6f1c2a4e-8b3d-4c5e-9f60-1a2b3c4d5e6f", mail: "me@example.org" }, ids)).toEqual([]);
    expect(check({ id: "123", mail: "me@" }, ids)).toEqual(["query.id", "query.mail"]);
    expect(check({ sortBy: "createdAt", sortOrder: "up" }, validationSchemas.sorting)).toEqual(["query.sortOrder"]);
    expect(check({ startDate: "2026-01-01", endDate: "2026-13-45" }, validationSchemas.dateRange)).toEqual(["query.endDate"]);
    expect(check({}, validationSchemas.search)).toEqual(["query.q"]);
    expect(check({ q: "find me", limit: "10" }, validationSchemas.search)).toEqual([]);
  });
});
