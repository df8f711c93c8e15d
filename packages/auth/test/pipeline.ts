import type { HttpMethod, MiddlewareDefinition, RouteHandler } from "@conduit-ai/server-core";
import { createTestApp } from "@conduit-ai/server-core/testing";

export interface PipelineResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary envelope fields
  json: any;
}

export interface PipelineRequest {
  method?: HttpMethod;
  /** Path and query, e.g. `/api/private?token=x`. */
  url: string;
  headers?: Record<string, string>;
  /** The socket peer (default `127.0.0.1`). */
  clientAddress?: string;
}

/**
 * The real core pipeline (routing, middleware onion, error envelope) without a socket,
 * for unit tests. Every route in `routes` answers `handler` (default: echo `ctx.user`).
 */
export function createPipeline(middleware: MiddlewareDefinition[], routes: string[] = ["/api/private"], handler?: RouteHandler) {
  const app = createTestApp({
    // The tests mount their own `/health` and `/ready` to check auth skips them.
    config: { disableBuiltInHealth: true },
    middleware,
    routes: routes.map((path) => ({ method: "GET", path, absolute: true, handler: handler ?? ((ctx) => ({ user: ctx.user ?? null })) })),
  });
  return async (request: PipelineRequest): Promise<PipelineResponse> => {
    const response = await app.request({
      method: request.method ?? "GET",
      url: request.url,
      headers: request.headers ?? {},
      clientAddress: request.clientAddress ?? "127.0.0.1",
    });
    return { status: response.status, headers: response.headers, json: response.text ? response.json() : null };
  };
}
