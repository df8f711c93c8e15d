import { z } from "zod";
import { defineRoute, type RegisteredRoute, type RouteDefinition, type RouteGroup } from "../contracts/route.js";
import { joinPaths } from "../core/pipeline/path-pattern.js";
import { loadOptionalDependency, requireInstalled } from "../core/lifecycle/optional-dependency.js";
import { rawResponse } from "../core/pipeline/raw-response.js";
import type { OpenAPIGeneratorConfig } from "../openapi/generate-openapi.js";
import { documentRawResponse } from "../openapi/raw-route.js";
import { DOCS_FEATURE, readSwaggerUiAsset, swaggerUiDirectory, swaggerUiInitializer, swaggerUiPage } from "../openapi/swagger-ui-assets.js";
import { resourceNotFound } from "./route-support.js";

export interface DocsRoutesOptions {
  /** The routes to document; usually bound to `adapter.listRoutes` so user routes appear too. */
  getRoutes: () => Array<RouteDefinition | RegisteredRoute>;
  /** Where the routes are mounted (the adapter's `basePath`), for the page's links. Default `/api`. */
  basePath?: string;
  openapi?: OpenAPIGeneratorConfig;
}

const noStore = "no-store";

/**
 * The docs group: `/docs/openapi.json` and `/docs/openapi.yaml` (generated on each
 * request from the live route table, sent raw), and an interactive reference at `/docs`
 * served from the installed `swagger-ui-dist` package (no CDN). `swagger-ui-dist` and `yaml` are
 * optional peers loaded here, so only servers with docs need them; either one missing raises
 * `MissingDependencyError` now, not on the first request.
 *
 * @example
 * adapter.registerRouteGroup(createDocsRoutes({ getRoutes: () => adapter.listRoutes(), basePath: "/api" }));
 */
export function createDocsRoutes(options: DocsRoutesOptions): RouteGroup {
  requireInstalled(["swagger-ui-dist", "yaml"], { feature: DOCS_FEATURE });
  swaggerUiDirectory();
  const { stringify } = loadOptionalDependency<typeof import("yaml")>("yaml", { feature: DOCS_FEATURE });
  const basePath = options.basePath ?? "/api";
  const docsPath = joinPaths(basePath, "/docs");
  // The generator (and the zod schemas of its envelopes) loads at the first document asked for, not
  // with the main entry: most servers never serve one, and every import of the core paid for it.
  const document = async () => {
    const { generateOpenAPIDocument } = await import("../openapi/generate-openapi.js");
    return generateOpenAPIDocument(options.getRoutes(), { basePath, ...options.openapi });
  };
  const title = options.openapi?.info?.title ?? "Conduit API";
  return {
    prefix: "/docs",
    tags: ["docs"],
    routes: [
      documentRawResponse(
        defineRoute({
          method: "GET",
          path: "/",
          summary: "Interactive API reference",
          handler: () =>
            rawResponse(swaggerUiPage({ title, assetsPath: `${docsPath}/assets` }), {
              headers: { "content-type": "text/html; charset=utf-8", "cache-control": noStore },
            }),
        }),
        { contentTypes: ["text/html"] },
      ),
      documentRawResponse(
        defineRoute({
          method: "GET",
          path: "/openapi.json",
          summary: "OpenAPI 3.1 document (JSON)",
          handler: async () =>
            rawResponse(JSON.stringify(await document()), {
              headers: { "content-type": "application/json; charset=utf-8", "cache-control": noStore },
            }),
        }),
        { contentTypes: ["application/json"] },
      ),
      documentRawResponse(
        defineRoute({
          method: "GET",
          path: "/openapi.yaml",
          summary: "OpenAPI 3.1 document (YAML)",
          handler: async () =>
            rawResponse(stringify(await document(), { aliasDuplicateObjects: false }), {
              headers: { "content-type": "application/yaml; charset=utf-8", "cache-control": noStore },
            }),
        }),
        { contentTypes: ["application/yaml"] },
      ),
      documentRawResponse(
        defineRoute({
          method: "GET",
          path: "/assets/:file",
          summary: "Static files of the reference page",
          schema: { params: z.object({ file: z.string().min(1).max(200) }) },
          handler: async (ctx) => {
            if (ctx.params.file === "conduit-initializer.js") {
              return rawResponse(swaggerUiInitializer(`${docsPath}/openapi.json`), {
                headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": noStore },
              });
            }
            const asset = await readSwaggerUiAsset(ctx.params.file);
            if (asset === undefined) throw resourceNotFound("ASSET_NOT_FOUND", "No such documentation asset", { file: ctx.params.file });
            return rawResponse(asset.body, { headers: { "content-type": asset.contentType, "cache-control": "public, max-age=86400" } });
          },
        }),
        { contentTypes: ["text/javascript", "text/css", "image/png"] },
      ),
    ],
  };
}
