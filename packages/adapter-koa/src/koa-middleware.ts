import { type MountOptions, mountedConfig, prepareMounted } from "@conduit-ai/server-core";
import { claimsRequest, handleNodeRequest } from "@conduit-ai/server-core/node";
import type { Context, Middleware, Next } from "koa";
import { KoaServerAdapter } from "./koa-adapter.js";

/** A Koa middleware serving Conduit; `conduit` is the server behind it (routes, middleware, `stop()` to drain). */
export type ConduitKoaMiddleware = Middleware & { readonly conduit: KoaServerAdapter };

/**
 * Conduit as a Koa middleware, for `app.use(middleware)` in the user's own app and server.
 * Paths Conduit has a route for are answered by the core (envelopes, middleware, errors and
 * streams as on the standalone server); every other path goes on down the chain (`next()`).
 * Koa has no mount point of its own: `basePath` (default `""`) places the routes, or mount it
 * under a prefix with `koa-mount`.
 *
 * @example
 * const app = new Koa();
 * app.use(conduitMiddleware({ runtime, config: { basePath: "/ai" } }));
 * app.listen(3000);
 */
export function conduitMiddleware(options: MountOptions<KoaServerAdapter> = {}): ConduitKoaMiddleware {
  const conduit = prepareMounted(new KoaServerAdapter(options.runtime, mountedConfig(options.config)), options);
  const middleware: Middleware = (ctx: Context, next: Next) => {
    if (!claimsRequest(conduit.handler, ctx.url)) return next();
    // The core writes the raw response; Koa must not touch it afterwards (nor report a client disconnect as an app error).
    ctx.respond = false;
    ctx.onerror = () => undefined;
    // A host's body parser (@koa/bodyparser) may already have read the stream.
    return handleNodeRequest(conduit.handler, ctx.req, ctx.res, undefined, { frameworkBody: (ctx.request as { body?: unknown }).body });
  };
  return Object.assign(middleware, { conduit });
}
