import type { RouteDefinition, RouteGroup, ServerContext } from "@conduit-ai/server-core";
import { codexErrorShape } from "./error-shape.js";
import type { SendCodex } from "./codex-sender.js";
import { codexError } from "./usage-limit.js";

export interface CodexRouteOptions {
  sendCodex: SendCodex;
  /** Who may call (the proxy's `createClientCheck(clientKeys)`); others get 401 before their body is read. */
  isClientAllowed: (ctx: ServerContext) => boolean;
}

function headersOf(ctx: ServerContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * `POST /backend-api/codex/responses`: the codex engine over the pool's codex accounts, body and
 * answer byte for byte. Mounted by `conduit proxy` only, never by `createAllRoutes`.
 *
 * @example
 * adapter.registerRoute(createCodexRoute({ sendCodex: createCodexSender({ pool, config }), isClientAllowed }));
 */
export function createCodexRoute(options: CodexRouteOptions): RouteDefinition {
  return {
    method: "POST",
    path: "/backend-api/codex/responses",
    absolute: true,
    rawBody: true,
    streaming: true,
    summary: "Codex Responses passthrough over the pool's codex accounts",
    tags: ["proxy"],
    handler: async (ctx: ServerContext) => {
      if (!options.isClientAllowed(ctx))
        return codexError(401, "invalid_api_key", "A proxy client key is required (Authorization: Bearer or x-api-key)");
      const body = await ctx.readRawBody();
      if (!body || body.byteLength === 0) return codexError(400, "invalid_request_error", "Request body is required");
      return options.sendCodex(body, { headers: headersOf(ctx), signal: ctx.abortSignal });
    },
  };
}

/**
 * The codex route as a group, with the codex error shape for Conduit's own errors on its paths
 * (auth, limits, timeouts, body limits, unknown codex routes).
 *
 * @example
 * server.registerRouteGroup(createCodexRouteGroup({ sendCodex, isClientAllowed }));
 */
export function createCodexRouteGroup(options: CodexRouteOptions): RouteGroup {
  return { prefix: "", routes: [createCodexRoute(options)], tags: ["proxy"], errorShapes: [codexErrorShape] };
}
