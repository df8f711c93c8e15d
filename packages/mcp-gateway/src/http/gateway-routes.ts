import { type RouteDefinition, type RouteGroup, defineRoute } from "@conduit-ai/server-core";
import { protectedResourceMetadata, protectedResourceMetadataUrl } from "../auth/oauth-resource.js";
import { jsonAnswer, mcpErrorShape } from "./answers.js";
import type { EndpointDependencies } from "./endpoint-deps.js";
import { handlePost } from "./post-handler.js";
import { handleDelete, handleGet } from "./stream-handlers.js";

/**
 * The endpoint's routes (absolute, outside `basePath`): `POST`, `GET` and `DELETE` at `path`, and
 * with OAuth the protected-resource metadata (RFC 9728) at its well-known addresses. The server's
 * per-address rate limit leaves them alone — callers are limited per key by the gate — and the
 * core answers its own errors on them in JSON-RPC's shape.
 */
export function gatewayRoutes(path: string, dependencies: EndpointDependencies): RouteGroup {
  const common = { path, absolute: true, rateLimit: false as const, tags: ["mcp-gateway"] };
  const routes: RouteDefinition[] = [
    defineRoute({
      ...common,
      method: "POST",
      rawBody: true,
      // A JSON answer waits for the upstream: the core's own deadline must not come first.
      timeoutMs: dependencies.gateway.timeoutMs + 5_000,
      summary: "MCP Streamable HTTP: one JSON-RPC message (initialize, tools/*, prompts/*, resources/*, completion/complete)",
      handler: (ctx) => handlePost(ctx, dependencies),
    }),
    defineRoute({
      ...common,
      method: "GET",
      streaming: true,
      summary: "MCP Streamable HTTP: the session's server notifications (SSE)",
      handler: (ctx) => handleGet(ctx, dependencies),
    }),
    defineRoute({
      ...common,
      method: "DELETE",
      summary: "MCP Streamable HTTP: end the session",
      handler: (ctx) => handleDelete(ctx, dependencies),
    }),
  ];
  const oauth = dependencies.oauth;
  if (oauth) {
    const document = JSON.stringify(protectedResourceMetadata(oauth));
    const paths = new Set([new URL(protectedResourceMetadataUrl(oauth.resource)).pathname, "/.well-known/oauth-protected-resource"]);
    for (const metadataPath of paths)
      routes.push(
        defineRoute({
          method: "GET",
          path: metadataPath,
          absolute: true,
          rateLimit: false,
          tags: ["mcp-gateway"],
          summary: "OAuth 2.0 protected resource metadata (RFC 9728) of the MCP endpoint",
          handler: () => jsonAnswer(200, document, { "cache-control": "public, max-age=300" }),
        }),
      );
  }
  return { prefix: "", routes, tags: ["mcp-gateway"], errorShapes: [mcpErrorShape(path)] };
}
