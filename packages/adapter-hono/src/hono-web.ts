import {
  BaseServerAdapter,
  ConfigurationError,
  type MountOptions,
  type RegisteredRoute,
  type RequestHandler,
  createAdapterFactory,
  mountedConfig,
  prepareMounted,
} from "@conduit-ai/server-core";
import { handleWebRequest } from "@conduit-ai/server-core/web";
import { type Context, Hono } from "hono";

/**
 * This file is the web-standard side of the Hono adapter (the `./fetch` entry): no `node:http`,
 * no `@hono/node-server`, so it runs on Bun, Deno and Cloudflare Workers. Requests cross the
 * core's web bridge (`Request` in, `Response` out, streams as pull-based `ReadableStream`s).
 */

const ALL_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

/** Conduit on Hono without a Node server of its own: served by a fetch handler or a host Hono app. */
export class HonoWebAdapter extends BaseServerAdapter<Hono> {
  readonly framework = "hono" as const;

  protected createApp(routes: RegisteredRoute[]): Hono {
    return buildWebApp(this.handler, routes, false);
  }

  protected listen(): never {
    throw new ConfigurationError(
      "A web-standard Conduit has no server of its own: serve its `fetch` (Bun.serve, Deno.serve, a Worker) or mount it in a Hono app",
    );
  }
}

/** The Hono app over the web bridge. Mounted: other methods on Conduit's paths go to the core, other paths to the host; standalone: the core answers every path. */
function buildWebApp(handler: RequestHandler, routes: RegisteredRoute[], mounted: boolean): Hono {
  const app = new Hono();
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    app.on(route.method, route.fullPath, (c) => serveWeb(handler, c, route, mounted ? route.fullPath : undefined));
    methodsByPath.set(route.fullPath, (methodsByPath.get(route.fullPath) ?? new Set()).add(route.method));
  }
  if (!mounted) {
    app.notFound((c) => serveWeb(handler, c));
    return app;
  }
  for (const [path, methods] of methodsByPath) {
    const others = ALL_METHODS.filter((method) => !methods.has(method));
    if (others.length > 0) app.on(others, path, (c) => serveWeb(handler, c, undefined, path));
  }
  return app;
}

function serveWeb(handler: RequestHandler, c: Context, route?: RegisteredRoute, pattern?: string): Promise<Response> {
  // Under `app.route("/ai", sub)` Hono matched "/ai" + pattern: the core matches what lies under the mount point.
  // (`c.req.routePath`, not the newer `hono/route` helper: it works across the whole hono 4 peer range.)
  const routePath = pattern === undefined ? undefined : c.req.routePath;
  const pathPrefix =
    pattern !== undefined && routePath?.endsWith(pattern) ? routePath.slice(0, routePath.length - pattern.length) : undefined;
  // On Node (@hono/node-server) the socket is in the bindings; web runtimes have no peer address to give.
  const clientAddress =
    (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? "";
  return handleWebRequest(handler, c.req.raw, { clientAddress, pathPrefix }, route);
}

/** The adapter entry of `./fetch`, as `createServer({adapter})` expects it. */
export const createAdapter = createAdapterFactory(HonoWebAdapter);

/** A Hono app serving Conduit, to mount with `app.route(path, conduitApp)`; `conduit` is the server behind it. */
export type ConduitSubApp = Hono & { readonly conduit: HonoWebAdapter };

/**
 * Conduit as a Hono sub-app for the user's own Hono app. Conduit's routes are answered by the
 * core exactly as on the standalone server; other paths stay the host's. `basePath` defaults
 * to `""`: routes sit right under the mount point. Routes registered later (on `conduit`) are
 * not seen: Hono copies a sub-app's routes when it is mounted — add them in `setup`.
 *
 * @example
 * const app = new Hono();
 * app.route("/ai", conduitApp({ runtime })); // POST /ai/agent/stream
 */
export function conduitApp(options: MountOptions<HonoWebAdapter> = {}): ConduitSubApp {
  const conduit = prepareMounted(new HonoWebAdapter(options.runtime, mountedConfig(options.config)), options);
  return Object.assign(buildWebApp(conduit.handler, conduit.listRoutes(), true), { conduit });
}

/** What `createFetchHandler` returns: `export default` it from a Worker, or pass `fetch` to `Bun.serve` / `Deno.serve`. */
export interface ConduitFetchHandler {
  fetch(request: Request, env?: unknown, executionContext?: unknown): Promise<Response>;
  /** The server behind it (routes, middleware, `stop()` to drain). */
  readonly conduit: HonoWebAdapter;
  /** The Hono app, open to native routes and middleware. */
  readonly app: Hono;
}

/**
 * The whole Conduit server as a web-standard fetch handler (Bun, Deno, Cloudflare Workers, or
 * Node through `@hono/node-server`): the standalone server's paths (`basePath` default `/api`),
 * its 404 envelope, and routes registered at any time.
 *
 * @example
 * import { createFetchHandler } from "@conduit-ai/adapter-hono/fetch";
 * export default createFetchHandler({ runtime }); // a Cloudflare Worker
 * // Bun.serve({ fetch: handler.fetch }); Deno.serve(handler.fetch);
 */
export function createFetchHandler(options: MountOptions<HonoWebAdapter> = {}): ConduitFetchHandler {
  const conduit = prepareMounted(new HonoWebAdapter(options.runtime, options.config), options);
  const app = buildWebApp(conduit.handler, conduit.listRoutes(), false);
  return {
    fetch: async (request, env, executionContext) => app.fetch(request, env, executionContext as never),
    conduit,
    app,
  };
}
