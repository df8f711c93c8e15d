import type { ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";
import { ErrorCategory } from "../errors/codes.js";

/** Components every generated document carries: the two envelopes of docs/design.md §3. */
export const envelopeComponents: Record<string, SchemaObject> = {
  ResponseMetadata: {
    type: "object",
    properties: {
      requestId: { type: "string" },
      timestamp: { type: "string", format: "date-time" },
      duration: { type: "number", description: "Milliseconds spent on the request" },
    },
    required: ["requestId", "timestamp", "duration"],
  },
  ErrorEnvelope: {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          code: { type: "string", examples: ["VALIDATION_ERROR", "TOOL_NOT_FOUND"] },
          message: { type: "string" },
          category: { type: "string", enum: Object.values(ErrorCategory) },
          requestId: { type: "string" },
          details: { description: "For validation errors: `{errors: [{field, message, value?}]}`" },
          retryAfter: { type: "integer", description: "Seconds, as in the Retry-After header" },
        },
        required: ["code", "message", "category", "requestId"],
      },
      metadata: {
        type: "object",
        properties: { timestamp: { type: "string", format: "date-time" }, requestId: { type: "string" } },
        required: ["timestamp", "requestId"],
      },
    },
    required: ["error", "metadata"],
  },
};

/** Reusable error responses, referenced by every operation. */
export const errorResponseComponents: Record<string, ResponseObject> = {
  ErrorResponse: {
    description: "Error envelope",
    content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
  },
};

export const errorResponseRef: ReferenceObject = { $ref: "#/components/responses/ErrorResponse" };

/** `{data, metadata}` around a route's data schema. */
export function successEnvelopeOf(data: SchemaObject | ReferenceObject): SchemaObject {
  return {
    type: "object",
    properties: { data, metadata: { $ref: "#/components/schemas/ResponseMetadata" } },
    required: ["data", "metadata"],
  };
}
