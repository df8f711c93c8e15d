import type { SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";

/**
 * A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12, which 3.1 uses
 * as is). `io: "input"` documents what a client sends (defaults optional, coercions
 * as their input), `"output"` what the server answers.
 *
 * @example
 * zodToSchemaObject(z.object({ text: z.string() }), "input"); // {type:"object", properties:{text:{type:"string"}}, required:["text"]}
 */
export function zodToSchemaObject(schema: z.ZodType, io: "input" | "output", definitions?: Record<string, SchemaObject>): SchemaObject {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  const { $schema: _dialect, $defs, ...rest } = generated;
  if ($defs === undefined) return rest as SchemaObject;
  // Nested definitions would resolve against the document root; move them to components.
  const text = JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/');
  for (const [name, definition] of Object.entries($defs as Record<string, unknown>)) {
    if (definitions)
      definitions[name] = JSON.parse(JSON.stringify(definition).replaceAll('"#/$defs/', '"#/components/schemas/')) as SchemaObject;
  }
  return JSON.parse(text) as SchemaObject;
}
