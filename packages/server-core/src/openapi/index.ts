/**
 * `@conduit-ai/server-core/openapi`: the OpenAPI 3.1 generator, the zod → JSON Schema step it uses,
 * and the built-in routes' request and response schemas (the shapes the document publishes).
 */
export { type OpenAPIGeneratorConfig, generateOpenAPIDocument } from "./generate-openapi.js";
export { type RawResponseDocumentation, documentRawResponse } from "./raw-route.js";
export type { JsonSchema, OpenAPIDocument, OpenAPIOperation } from "./openapi-document.js";
export { zodToOpenApiSchema } from "./zod-openapi-schema.js";
export {
  MAX_EMBED_BATCH,
  embedManyRequestSchema,
  embedRequestSchema,
  generateRequestSchema,
  mcpServerParamsSchema,
  mcpToolParamsSchema,
  namedToolExecuteRequestSchema,
  sessionClearParamsSchema,
  sessionIdParamsSchema,
  sessionMessagesQuerySchema,
  toolExecuteRequestSchema,
  toolNameParamsSchema,
  toolSearchQuerySchema,
} from "../routes/schemas.js";
export type { GenerateRequestBody } from "../routes/schemas.js";
export {
  embedManyResponseSchema,
  embedResponseSchema,
  generateResponseSchema,
  mcpServerDetailResponseSchema,
  mcpServerListResponseSchema,
  mcpServerSchema,
  mcpServerToolsResponseSchema,
  providerSchema,
  providersResponseSchema,
  sessionClearedResponseSchema,
  sessionDeletedResponseSchema,
  sessionListResponseSchema,
  sessionMessagesResponseSchema,
  sessionSchema,
  tokenUsageSchema,
  toolExecutionResponseSchema,
  toolListResponseSchema,
  toolSchema,
  toolSearchResponseSchema,
} from "../routes/response-schemas.js";
