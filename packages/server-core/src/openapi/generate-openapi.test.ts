import SwaggerParser from "@apidevtools/swagger-parser";
import type { OperationObject, ParameterObject, SchemaObject } from "openapi3-ts/oas31";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestApp } from "../testing/test-kit.js";
import { createAllRoutes } from "../routes/all-routes.js";
import { createTestRuntime } from "../testing/test-runtime.js";
import { generateOpenAPIDocument } from "./generate-openapi.js";

/** A server like the demo's: every group, metrics, docs, built-in health and a user route. */
function realisticServer() {
  const app = createTestApp({ config: { enableSwagger: true, logging: { enabled: false } } });
  const getRoutes = () => app.adapter.listRoutes();
  for (const group of createAllRoutes(createTestRuntime(), "/api", { enableSwagger: true, getRoutes }))
    app.adapter.registerRouteGroup(group);
  app.adapter.registerRoute({
    method: "PUT",
    path: "/widgets/:widgetId",
    tags: ["widgets"],
    deprecated: true,
    schema: {
      params: z.object({ widgetId: z.string().uuid() }),
      query: z.object({ dryRun: z.enum(["true", "false"]).optional() }),
      body: z.object({ size: z.number().int().min(1) }),
      response: z.object({ id: z.string(), size: z.number() }),
    },
    handler: () => ({ id: "w", size: 1 }),
  });
  return app;
}

type DocumentedResponses = Record<string, { content: Record<string, { schema: SchemaObject }> }>;
const operation = (document: ReturnType<typeof generateOpenAPIDocument>, path: string, method: "get" | "post" | "put" | "delete") =>
  document.paths?.[path]?.[method] as unknown as OperationObject & { responses: DocumentedResponses };

describe("generateOpenAPIDocument", () => {
  it("documents every registered route and validates with a real OpenAPI validator", async () => {
    const app = realisticServer();
    const document = generateOpenAPIDocument(app.adapter.listRoutes(), {
      info: { title: "Test" },
      servers: [{ url: "http://localhost:3000" }],
    });
    expect(document.openapi).toBe("3.1.0");
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = app.adapter.listRoutes().map((route) => `${route.method} ${route.fullPath.replace(/:(\w+)/g, "{$1}")}`);
    expect(documented.sort()).toEqual(registered.sort());
    expect(documented).toEqual(
      expect.arrayContaining(["GET /api/metrics", "GET /api/docs/openapi.json", "PUT /api/widgets/{widgetId}", "GET /health"]),
    );
    // Validation mutates (dereferences) its input: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    // The validator really checks: a parameter in no valid location and a dangling $ref are refused.
    const broken = structuredClone(document);
    (broken.paths as Record<string, unknown>)["/broken/{id}"] = { get: { parameters: [{ name: "id", in: "nowhere" }] } };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow();
    const dangling = structuredClone(document);
    (dangling.paths as Record<string, unknown>)["/dangling"] = {
      get: { responses: { "200": { $ref: "#/components/responses/Missing" } } },
    };
    await expect(SwaggerParser.validate(dangling as never)).rejects.toThrow();
  });

  it("takes parameters, bodies and response data from the zod schemas, inside the envelopes", () => {
    const document = generateOpenAPIDocument(realisticServer().adapter.listRoutes());
    const widget = operation(document, "/api/widgets/{widgetId}", "put");
    expect(widget.deprecated).toBe(true);
    expect(widget.tags).toEqual(["widgets"]);
    const parameters = widget.parameters as ParameterObject[];
    expect(parameters.find((parameter) => parameter.in === "path")).toMatchObject({
      name: "widgetId",
      required: true,
      schema: { format: "uuid" },
    });
    expect(parameters.find((parameter) => parameter.in === "query")).toMatchObject({ name: "dryRun", required: false });
    expect(widget.requestBody).toMatchObject({ required: true, content: { "application/json": { schema: { required: ["size"] } } } });
    const success = widget.responses["200"]?.content["application/json"]?.schema as SchemaObject;
    expect(success.properties?.data).toMatchObject({ properties: { id: { type: "string" } } });
    expect(success.properties?.metadata).toEqual({ $ref: "#/components/schemas/ResponseMetadata" });
    expect(widget.responses["400"]).toEqual({ $ref: "#/components/responses/ErrorResponse" });
    expect(widget.responses["5XX"]).toEqual({ $ref: "#/components/responses/ErrorResponse" });

    const messages = operation(document, "/api/memory/sessions/{id}/messages", "get");
    const limit = (messages.parameters as ParameterObject[]).find((parameter) => parameter.name === "limit");
    expect(limit?.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 200, default: 50 });
    const embedMany = operation(document, "/api/agent/embed-many", "post");
    expect(embedMany.requestBody).toMatchObject({
      content: { "application/json": { schema: { properties: { texts: { maxItems: 100 } } } } },
    });
  });

  it("documents streams as SSE and NDJSON and raw routes without the envelope", () => {
    const document = generateOpenAPIDocument(realisticServer().adapter.listRoutes());
    const stream = operation(document, "/api/agent/stream", "post");
    expect(Object.keys(stream.responses["200"]?.content ?? {})).toEqual(["text/event-stream", "application/x-ndjson"]);
    const metrics = operation(document, "/api/metrics", "get");
    expect(Object.keys(metrics.responses["200"]?.content ?? {})).toEqual(["text/plain", "application/json"]);
    expect(operation(document, "/api/docs/openapi.yaml", "get").responses["200"]?.content["application/yaml"]).toBeDefined();
  });

  it("adds security schemes unless includeSecurity is false, plus tags and custom schemas", () => {
    const routes = realisticServer().adapter.listRoutes();
    const document = generateOpenAPIDocument(routes, {
      additionalTags: [{ name: "extra", description: "More" }],
      customSchemas: { Widget: z.object({ id: z.string() }) },
    });
    expect(document.components?.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
      apiKeyAuth: { type: "apiKey", in: "header", name: "x-api-key" },
    });
    expect(document.tags?.map((tag) => tag.name)).toEqual(
      expect.arrayContaining(["agent", "tools", "mcp", "memory", "health", "docs", "extra"]),
    );
    expect(document.components?.schemas?.Widget).toMatchObject({ type: "object", required: ["id"] });
    const unsecured = generateOpenAPIDocument(routes, { includeSecurity: false });
    expect(unsecured.components?.securitySchemes).toEqual({});
    expect(unsecured.security).toBeUndefined();
  });

  it("prefixes plain route definitions with basePath and keeps operation ids unique", () => {
    const document = generateOpenAPIDocument(
      [
        { method: "GET", path: "/a-b", handler: () => 1 },
        { method: "GET", path: "/a_b", handler: () => 1 },
        { method: "GET", path: "/files/*", handler: () => 1 },
      ],
      { basePath: "/v2" },
    );
    expect(Object.keys(document.paths ?? {})).toEqual(["/v2/a_b", "/v2/a-b", "/v2/files/{wildcard}"]);
    const ids = Object.values(document.paths ?? {}).map((item) => (item.get as OperationObject).operationId);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("docs routes", () => {
  it("serve the document raw as JSON and YAML (same object), and the reference page from swagger-ui-dist", async () => {
    const app = realisticServer();
    const json = await app.request({ url: "/api/docs/openapi.json" });
    expect(json.status).toBe(200);
    expect(json.headers["content-type"]).toContain("application/json");
    const document = json.json();
    expect(document.openapi).toBe("3.1.0");
    expect(document.data).toBeUndefined();
    const yaml = await app.request({ url: "/api/docs/openapi.yaml" });
    expect(yaml.headers["content-type"]).toContain("yaml");
    expect(parse(yaml.text)).toEqual(document);

    const page = await app.request({ url: "/api/docs" });
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.text).toContain('src="/api/docs/assets/swagger-ui-bundle.js"');
    const bundle = await app.request({ url: "/api/docs/assets/swagger-ui-bundle.js" });
    expect([bundle.status, bundle.headers["content-type"]]).toEqual([200, "text/javascript; charset=utf-8"]);
    expect(bundle.bytes.length).toBeGreaterThan(100_000);
    const initializer = await app.request({ url: "/api/docs/assets/conduit-initializer.js" });
    expect(initializer.text).toContain('"/api/docs/openapi.json"');
  });

  it("never serves a file outside swagger-ui-dist", async () => {
    const app = realisticServer();
    for (const name of ["..%2Fpackage.json", "package.json", "%2Fetc%2Fpasswd", "..%2F..%2Fyaml%2Fpackage.json", "index.html"]) {
      const response = await app.request({ url: `/api/docs/assets/${name}` });
      expect(response.status, name).toBe(404);
    }
  });
});
