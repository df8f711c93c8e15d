// Types only: the document is built as a plain object, so openapi3-ts is never loaded at run time.
import type {
  OpenAPIObject,
  PathItemObject,
  ResponseObject,
  SchemaObject,
  SecuritySchemeObject,
  ServerObject,
  TagObject,
} from "openapi3-ts/oas31";
import type { z } from "zod";
import type { RegisteredRoute, RouteDefinition } from "../contracts/route.js";
import type { JsonSchema, OpenAPIDocument } from "./openapi-document.js";
import { joinPaths } from "../core/pipeline/path-pattern.js";
import { VERSION } from "../version.js";
import { envelopeComponents, errorResponseComponents } from "./envelope-schemas.js";
import { routeOperation, toOpenApiPath } from "./route-operation.js";
import { zodToSchemaObject } from "./zod-json-schema.js";

/** docs/spec.md "OpenAPIGeneratorConfig". */
export interface OpenAPIGeneratorConfig {
  info?: { title?: string; version?: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  /** Bearer and `x-api-key` security schemes (default true). */
  includeSecurity?: boolean;
  /** Prefix of routes given without a resolved `fullPath` (default `/api`). */
  basePath?: string;
  additionalTags?: Array<{ name: string; description?: string }>;
  /** Extra component schemas, as zod schemas or JSON schemas. */
  customSchemas?: Record<string, z.ZodType | JsonSchema>;
  /** Routes documented in addition to the ones passed as the first argument. */
  routes?: RouteDefinition[];
}

const GROUP_DESCRIPTIONS: Record<string, string> = {
  agent: "Generation, streaming, providers and embeddings",
  tools: "Tool registry: list, search, describe, execute",
  mcp: "External MCP tool servers",
  memory: "Conversation sessions and their messages",
  health: "Liveness, readiness and service status",
  docs: "This document and the interactive reference",
  metrics: "Prometheus metrics",
};

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** `post /api/tools/:name/execute` → `postApiToolsByNameExecute`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((segment) => (segment.startsWith(":") ? `by-${segment.slice(1)}` : segment === "*" ? "wildcard" : segment))
    .join("-")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((word) => word[0]?.toUpperCase() + word.slice(1))].join("");
}

/**
 * The OpenAPI 3.1 document of a set of routes (usually `adapter.listRoutes()`, so user
 * routes are included): paths from the route templates, parameters, request bodies
 * and response schemas from the routes' zod schemas inside the envelopes, streaming
 * routes as `text/event-stream` and NDJSON, and the error envelope for 4xx/5xx.
 *
 * @example
 * const document = generateOpenAPIDocument(adapter.listRoutes(), { info: { title: "My API" } });
 * document.openapi; // "3.1.0"
 */
export function generateOpenAPIDocument(
  routes: Array<RouteDefinition | RegisteredRoute>,
  config: OpenAPIGeneratorConfig = {},
): OpenAPIDocument {
  const basePath = config.basePath ?? "/api";
  const schemas: Record<string, SchemaObject> = {};
  const responses: Record<string, ResponseObject> = {};
  const securitySchemes: Record<string, SecuritySchemeObject> = {};
  const paths: Record<string, PathItemObject> = {};
  // Keys in the order readers are used to: openapi, info, paths, components, servers, tags, security.
  const document: OpenAPIObject = {
    openapi: "3.1.0",
    info: {
      title: config.info?.title ?? "Conduit API",
      version: config.info?.version ?? VERSION,
      ...(config.info?.description ? { description: config.info.description } : {}),
    },
    paths,
    components: { schemas, responses, securitySchemes },
  };
  const servers: ServerObject[] = [...(config.servers ?? [])];
  if (servers.length > 0) document.servers = servers;

  const definitions: Record<string, SchemaObject> = {};
  for (const [name, schema] of Object.entries(envelopeComponents)) schemas[name] = schema;
  for (const [name, response] of Object.entries(errorResponseComponents)) responses[name] = response;
  for (const [name, schema] of Object.entries(config.customSchemas ?? {})) {
    schemas[name] = isZodSchema(schema) ? zodToSchemaObject(schema, "output", definitions) : schema;
  }

  const pathItems = new Map<string, PathItemObject>();
  const operationIds = new Set<string>();
  const tagNames = new Set<string>();
  for (const route of [...routes, ...(config.routes ?? [])]) {
    const method = route.method.toLowerCase();
    if (!HTTP_METHODS.has(method)) continue;
    const registered = (route as Partial<RegisteredRoute>).fullPath;
    const fullPath = typeof registered === "string" ? registered : route.absolute ? joinPaths(route.path) : joinPaths(basePath, route.path);
    const { path, parameters } = toOpenApiPath(fullPath);
    const item = pathItems.get(path) ?? {};
    if (item[method as "get"]) continue;
    let operationId = route.operationId ?? operationIdOf(method, fullPath);
    for (let suffix = 2; operationIds.has(operationId); suffix++)
      operationId = `${route.operationId ?? operationIdOf(method, fullPath)}${suffix}`;
    operationIds.add(operationId);
    item[method as "get"] = routeOperation(route, parameters, operationId, definitions);
    for (const tag of route.tags ?? []) tagNames.add(tag);
    pathItems.set(path, item);
  }
  for (const [path, item] of [...pathItems].sort(([a], [b]) => a.localeCompare(b))) paths[path] = item;
  for (const [name, schema] of Object.entries(definitions)) schemas[name] = schema;

  const tags = new Map<string, TagObject>();
  for (const name of tagNames) tags.set(name, GROUP_DESCRIPTIONS[name] ? { name, description: GROUP_DESCRIPTIONS[name] } : { name });
  for (const tag of config.additionalTags ?? []) tags.set(tag.name, tag);
  if (tags.size > 0) document.tags = [...tags.values()];

  if (config.includeSecurity ?? true) {
    securitySchemes.bearerAuth = { type: "http", scheme: "bearer", description: "Authorization: Bearer <token>" };
    securitySchemes.apiKeyAuth = { type: "apiKey", in: "header", name: "x-api-key" };
    // `{}` keeps anonymous access documented: whether a route needs auth depends on the auth middleware configured.
    document.security = [{}, { bearerAuth: [] }, { apiKeyAuth: [] }];
  }
  return document as OpenAPIDocument;
}
