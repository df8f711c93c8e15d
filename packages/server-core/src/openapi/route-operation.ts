import type { OperationObject, ParameterObject, ResponsesObject, SchemaObject } from "openapi3-ts/oas31";
import type { RouteDefinition } from "../contracts/route.js";
import { errorResponseRef, successEnvelopeOf } from "./envelope-schemas.js";
import { rawResponseDocumentationOf } from "./raw-route.js";
import { zodToSchemaObject } from "./zod-json-schema.js";

/**
 * `/tools/:name` → `/tools/{name}` plus the parameter names; a `*` segment becomes
 * `{wildcard}` so the template stays valid.
 */
export function toOpenApiPath(path: string): { path: string; parameters: string[] } {
  const parameters: string[] = [];
  const converted = path
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) {
        parameters.push(segment.slice(1));
        return `{${segment.slice(1)}}`;
      }
      if (segment === "*") {
        parameters.push("wildcard");
        return "{wildcard}";
      }
      return segment;
    })
    .join("/");
  return { path: converted, parameters };
}

const streamEventSchema: SchemaObject = {
  type: "object",
  description: "One DataStreamEvent",
  properties: {
    type: { type: "string", enum: ["text-start", "text-delta", "text-end", "tool-call", "tool-result", "data", "error", "finish"] },
    id: { type: "string" },
    timestamp: { type: "number" },
    data: {},
  },
  required: ["type", "timestamp", "data"],
};

function parametersOf(route: RouteDefinition, pathParameters: string[], definitions: Record<string, SchemaObject>): ParameterObject[] {
  const parameters: ParameterObject[] = [];
  const paramsSchema = route.schema?.params ? zodToSchemaObject(route.schema.params, "input", definitions) : undefined;
  for (const name of pathParameters) {
    const schema = (paramsSchema?.properties?.[name] as SchemaObject | undefined) ?? { type: "string" };
    parameters.push({ name, in: "path", required: true, schema });
  }
  if (route.schema?.query) {
    const querySchema = zodToSchemaObject(route.schema.query, "input", definitions);
    const required = new Set(querySchema.required ?? []);
    for (const [name, schema] of Object.entries(querySchema.properties ?? {})) {
      const { description, ...rest } = schema as SchemaObject;
      parameters.push({ name, in: "query", required: required.has(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  if (route.streaming) {
    parameters.push({
      name: "format",
      in: "query",
      required: false,
      description:
        "Stream encoding; NDJSON also with `Accept: application/x-ndjson`. `ui-message`: the Vercel AI SDK UI message stream protocol (v1) that `useChat` reads",
      schema: { type: "string", enum: ["sse", "ndjson", "ui-message"] },
    });
    parameters.push({
      name: "x-conduit-stream-format",
      in: "header",
      required: false,
      description:
        "Names the stream encoding like `?format=` (which wins when both are given); `ui-message` is the Vercel AI SDK UI message stream protocol",
      schema: { type: "string", enum: ["sse", "ndjson", "ui-message"] },
    });
  }
  return parameters;
}

function successResponses(route: RouteDefinition, definitions: Record<string, SchemaObject>): ResponsesObject {
  const raw = rawResponseDocumentationOf(route);
  if (raw) {
    const content = Object.fromEntries(raw.contentTypes.map((type) => [type, { schema: type.includes("json") ? {} : { type: "string" } }]));
    return { "200": { description: raw.description ?? "Raw response (not wrapped in the success envelope)", content } };
  }
  if (route.streaming) {
    return {
      "200": {
        description: "A stream of DataStreamEvents; the last one is `finish` or `error`",
        content: {
          "text/event-stream": {
            schema: {
              type: "string",
              description:
                "SSE frames: `event: <type>`, `id: <id>`, `data: <DataStreamEvent JSON>`. With `format=ui-message`: the AI SDK UI message stream (`data: <UI message chunk JSON>` frames, then `data: [DONE]`; header `x-vercel-ai-ui-message-stream: v1`)",
            },
          },
          "application/x-ndjson": { schema: streamEventSchema },
        },
      },
    };
  }
  const data = route.schema?.response ? zodToSchemaObject(route.schema.response, "output", definitions) : {};
  return {
    [String(route.successStatus ?? 200)]: {
      description: route.summary ?? "Success",
      content: { "application/json": { schema: successEnvelopeOf(data) } },
    },
  };
}

/** The operation object of one route: parameters, body, success and error responses. */
export function routeOperation(
  route: RouteDefinition,
  pathParameters: string[],
  operationId: string,
  definitions: Record<string, SchemaObject>,
): OperationObject {
  const operation: OperationObject = { operationId, responses: successResponses(route, definitions) };
  if (route.summary) operation.summary = route.summary;
  if (route.description) operation.description = route.description;
  if (route.tags?.length) operation.tags = route.tags;
  if (route.deprecated) operation.deprecated = true;
  const parameters = parametersOf(route, pathParameters, definitions);
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.schema?.body) {
    const schema = zodToSchemaObject(route.schema.body, "input", definitions);
    // A body whose schema has a default may be left out.
    operation.requestBody = { required: schema.default === undefined, content: { "application/json": { schema } } };
  }
  const responses = operation.responses as ResponsesObject;
  if (route.schema?.body || route.schema?.query || route.schema?.params) responses["400"] = errorResponseRef;
  if (pathParameters.length > 0) responses["404"] = errorResponseRef;
  responses["4XX"] = errorResponseRef;
  responses["5XX"] = errorResponseRef;
  return operation;
}
