/**
 * `@conduit-ai/server-core/openapi`: the OpenAPI 3.1 generator, the zod → JSON Schema step it uses,
 * and the built-in routes' request and response schemas (the shapes the document publishes).
 */
export { type OpenAPIGeneratorConfig, generateOpenAPIDocument } from "./generate-openapi.js";
export { type RawResponseDocumentation, documentRawResponse } from "./raw-route.js";
export type { JsonSchema, OpenAPIDocument, OpenAPIOperation } from "./openapi-document.js";
export { zodToOpenApiSchema } from "./zod-openapi-schema.js";
export * from "../routes/schemas.js";
export * from "../routes/response-schemas.js";
