import { type RouteDefinition, rawResponse } from "@conduit-ai/server-core";

const UPGRADE_MESSAGE = "This proxy serves the Responses API over HTTP only: send the request as POST (WebSocket is not offered)";

/**
 * `GET <path>`: the WebSocket transport of the Responses API, refused at once with **426 Upgrade
 * Required**. The Codex CLI opens `ws://<base>/responses` before any HTTP call; a 426 on that
 * handshake is the one answer it takes as "use HTTP" for the whole session without retrying
 * (codex-rs `client.rs`: `UPGRADE_REQUIRED` → `FallbackToHttp`), where a 404 or a dropped socket
 * costs it a round of retries with backoff. The body is in the path's vendor shape (`body`).
 *
 * @example
 * routes.push(createUpgradeRefusalRoute("/v1/responses", openaiUpgradeBody));
 */
export function createUpgradeRefusalRoute(path: string, body: string): RouteDefinition {
  return {
    method: "GET",
    path,
    absolute: true,
    // Nothing is done and nothing is reached: no credential needed, nothing to count.
    rateLimit: false,
    summary: "WebSocket transport: refused with 426 so clients use HTTP POST",
    tags: ["proxy"],
    handler: () => rawResponse(body, { status: 426, headers: { "content-type": "application/json", "x-should-retry": "false" } }),
  };
}

/** The refusal's body in OpenAI's error shape (`/v1/responses`) — the codex route's is the same shape. */
export const UPGRADE_REFUSAL_BODY = JSON.stringify({
  error: { message: UPGRADE_MESSAGE, type: "invalid_request_error", param: null, code: "upgrade_required" },
});

/**
 * `GET`/`HEAD` on the base URLs clients are given (`/` for Anthropic's clients, `/v1` for OpenAI's):
 * 204 at once. Claude Code sends `HEAD /` to `ANTHROPIC_BASE_URL` as a connectivity check before
 * its first call, and health checkers do the same; a 404 there reads as "endpoint down".
 *
 * @example
 * for (const route of createBaseUrlProbeRoutes()) adapter.registerRoute(route);
 */
export function createBaseUrlProbeRoutes(paths: readonly string[] = ["/", "/v1"]): RouteDefinition[] {
  return paths.map((path) => ({
    method: "GET" as const,
    path,
    absolute: true,
    rateLimit: false as const,
    summary: "Base URL probe (HEAD or GET): 204",
    tags: ["proxy"],
    handler: () => rawResponse(null, { status: 204 }),
  }));
}
