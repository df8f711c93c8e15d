import type { z } from "zod";
import type { JsonSchema } from "./openapi-document.js";
import { zodToSchemaObject } from "./zod-json-schema.js";

/**
 * The JSON Schema of a zod schema as the OpenAPI document holds it (`io` picks the input or the
 * output side). Shared definitions go to `definitions` (`#/components/schemas/...`).
 *
 * @example
 * zodToOpenApiSchema(z.object({ name: z.string() }), "input"); // { type: "object", properties: {...}, ... }
 */
export function zodToOpenApiSchema(schema: z.ZodType, io: "input" | "output", definitions?: Record<string, JsonSchema>): JsonSchema {
  return zodToSchemaObject(schema, io, definitions as Parameters<typeof zodToSchemaObject>[2]) as JsonSchema;
}
