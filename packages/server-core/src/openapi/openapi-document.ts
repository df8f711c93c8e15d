/**
 * The OpenAPI shapes of server-core's published API: structural and open (every object takes
 * more keys). The generator builds with openapi3-ts's types inside, but the published
 * declarations name none of them, so a strict TypeScript consumer needs no openapi3-ts (which
 * would bring yaml along for types alone).
 */

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it). */
export interface JsonSchema {
  [keyword: string]: unknown;
}

/** One operation of the document (`paths[path][method]`). */
export interface OpenAPIOperation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** The OpenAPI 3.1 document `generateOpenAPIDocument` returns. */
export interface OpenAPIDocument {
  openapi: string;
  info: { title: string; version: string; description?: string; [key: string]: unknown };
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, OpenAPIOperation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    responses?: Record<string, unknown>;
    securitySchemes?: Record<string, unknown>;
    [key: string]: unknown;
  };
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}
