import { EventEmitter } from "node:events";
import {
  type HttpMethod,
  type MiddlewareDefinition,
  RequestHandler,
  type RouteHandler,
  resolveConfig,
} from "@conduit-ai/server-core";

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
  const core = new RequestHandler(resolveConfig({ logging: { enabled: false } }), new EventEmitter());
  for (const definition of middleware) core.middleware.add(definition);
  for (const path of routes) {
    core.routes.add({ method: "GET", path, fullPath: path, handler: handler ?? ((ctx) => ({ user: ctx.user ?? null })) });
  }
  return async (request: PipelineRequest): Promise<PipelineResponse> => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
    const response = await core.dispatch({
      method: request.method ?? "GET",
      url: request.url,
      headers,
      clientAddress: request.clientAddress ?? "127.0.0.1",
      body: { kind: "none" },
    });
    response.done();
    const text = typeof response.body === "string" ? response.body : response.body ? Buffer.from(response.body as Uint8Array).toString() : "";
    return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : null };
  };
}
