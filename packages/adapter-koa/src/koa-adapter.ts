import { type Server, createServer } from "node:http";
import { type RegisteredRoute, createAdapterFactory } from "@conduit-ai/server-core";
import { type NodeRequestOptions, NodeServerAdapter, handleNodeRequest, nativeRoutePath } from "@conduit-ai/server-core/node";
import Router from "@koa/router";
import Koa, { type Context } from "koa";

type RouterMethod = "get" | "post" | "put" | "delete" | "patch" | "options";

declare module "@conduit-ai/server-core" {
  /** `createServer(runtime, {framework: "koa"})` → `getFrameworkInstance()` is this app type. */
  interface FrameworkApps {
    koa: Koa;
  }
}

/**
 * Conduit on Koa 3. Conduit's routes live on a native `@koa/router` (case sensitive, like
 * Conduit's own table) that is appended to the middleware chain when the server starts,
 * after the user's native middleware and routers; a final middleware sends everything
 * nobody answered to the core, so 404 and OPTIONS get Conduit's envelope instead of Koa's
 * plain "Not Found".
 *
 * @example
 * const server = new KoaServerAdapter(runtime, { port: 3000 });
 * await server.initialize();
 * const app = server.getFrameworkInstance(); // the real Koa app
 * app.use(async (ctx, next) => { ctx.set("x-native", "yes"); await next(); });
 * await server.start();
 */
export class KoaServerAdapter extends NodeServerAdapter<Koa> {
  readonly framework = "koa" as const;
  /** The Conduit router of each app, appended on start so the user's own middleware runs first. */
  private readonly conduitRouters = new WeakMap<Koa, Router>();

  protected createApp(routes: RegisteredRoute[]): Koa {
    const app = new Koa();
    const router = new Router({ sensitive: true });
    for (const route of routes) {
      router[route.method.toLowerCase() as RouterMethod](nativeRoutePath(route.fullPath, "path-to-regexp"), (ctx: Context) =>
        this.serve(ctx, route),
      );
    }
    this.conduitRouters.set(app, router);
    return app;
  }

  protected createHttpServer(app: Koa): Server {
    const router = this.conduitRouters.get(app);
    if (router) {
      app.use(router.routes());
      // 404, OPTIONS, routes registered after start: the core decides.
      app.use((ctx: Context) => this.serve(ctx));
      this.conduitRouters.delete(app);
    }
    return createServer(app.callback());
  }

  private serve(ctx: Context, route?: RegisteredRoute): Promise<void> {
    // The core writes the raw response; Koa must not touch it afterwards, nor print a client
    // disconnect on the raw socket as an application error (the core records aborts itself).
    ctx.respond = false;
    ctx.onerror = () => undefined;
    // A user's body parser (koa-bodyparser, @koa/bodyparser) may already have read the stream.
    const options: NodeRequestOptions = { frameworkBody: (ctx.request as { body?: unknown }).body };
    return handleNodeRequest(this.handler, ctx.req, ctx.res, route, options);
  }
}

/** The entry the core's `createServer` loads; `options.defaultMiddleware: false` skips the default stack. */
export const createAdapter = createAdapterFactory(KoaServerAdapter);
