import type { RouteDefinition } from "../contracts/route.js";

const rawDocumentation = Symbol.for("@conduit-ai/server-core/RawResponseDocumentation");

/** How a route that returns a raw body (no success envelope) is documented. */
export interface RawResponseDocumentation {
  /** Content types the route answers with (first is the default). */
  contentTypes: string[];
  description?: string;
}

/**
 * Marks a route whose handler returns `rawResponse(...)`, so OpenAPI documents the raw
 * content type instead of the success envelope. The mark is a symbol property, which
 * survives the spread the core makes when it registers the route.
 *
 * @example
 * adapter.registerRoute(documentRawResponse({ method: "GET", path: "/metrics", handler }, { contentTypes: ["text/plain"] }));
 */
export function documentRawResponse<T extends RouteDefinition>(route: T, documentation: RawResponseDocumentation): T {
  return Object.assign(route, { [rawDocumentation]: documentation });
}

export function rawResponseDocumentationOf(route: RouteDefinition): RawResponseDocumentation | undefined {
  return (route as unknown as Record<symbol, RawResponseDocumentation | undefined>)[rawDocumentation];
}
