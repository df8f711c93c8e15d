import type { PropertySchema, ValidationSchema } from "./validation-schema.js";

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$";
const EMAIL = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
const ISO_DATE = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})?)?$";

const uuid: PropertySchema = { type: "string", pattern: UUID };
const email: PropertySchema = { type: "string", maxLength: 254, pattern: EMAIL };
const date: PropertySchema = {
  type: "string",
  pattern: ISO_DATE,
  validate: (value) => !Number.isNaN(Date.parse(String(value))) || "must be a valid date",
};
const pageFields: Record<string, PropertySchema> = {
  page: { type: "number", minimum: 1, default: 1 },
  limit: { type: "number", minimum: 1, maximum: 100, default: 20 },
};

/**
 * Pre-built schemas: `uuid` and `email` are property schemas; the others are whole
 * schemas for query strings or params.
 *
 * @example
 * createValidationMiddleware({ params: validationSchemas.idParam, query: validationSchemas.pagination });
 * createValidationMiddleware({ body: { required: ["email"], properties: { email: validationSchemas.email } } });
 */
export const validationSchemas = {
  uuid,
  email,
  /** `page` ≥ 1 (default 1), `limit` 1–100 (default 20). */
  pagination: { properties: pageFields } satisfies ValidationSchema,
  /** `sortBy` (identifier), `sortOrder` `asc`|`desc` (default `asc`). */
  sorting: {
    properties: {
      sortBy: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_.]{0,63}$" },
      sortOrder: { type: "string", enum: ["asc", "desc"], default: "asc" },
    },
  } satisfies ValidationSchema,
  /** Path param `id`: 1–128 safe characters. */
  idParam: {
    required: ["id"],
    properties: { id: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._:-]+$" } },
  } satisfies ValidationSchema,
  /** ISO 8601 `startDate` and `endDate`. */
  dateRange: { properties: { startDate: date, endDate: date } } satisfies ValidationSchema,
  /** `q` 1–500 characters plus pagination. */
  search: {
    required: ["q"],
    properties: { q: { type: "string", minLength: 1, maxLength: 500 }, ...pageFields },
  } satisfies ValidationSchema,
} as const;
