import { type Server, createServer } from "node:http";
import { type RegisteredRoute, createAdapterFactory } from "@conduit-ai/server-core";
import { NodeServerAdapter, nativeRoutePath } from "@conduit-ai/server-core/node";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HTTPMethods,
  type preParsingHookHandler,
} from "fastify";
import { takeOver, takeOverBeforeParsing } from "./fastify-takeover.js";

export type ConduitFastifyApp = FastifyInstance<Server>;

export const FALLBACK_METHODS: HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];

declare module "@conduit-ai/server-core" {
  /** `createServer(runtime, {framework: "fastify"})` → `getFrameworkInstance()` is this app type. */
  interface FrameworkApps {
    fastify: ConduitFastifyApp;
  }
}

/**
 * Conduit on Fastify 5. Conduit's routes are native Fastify routes. Routes with a body take
 * the request over in their own `preParsing` hook (after the user's `onRequest` and
 * `preParsing` hooks), before Fastify's content-type parsing and body limit, so the core
 * reads the raw body with its own limits and answers every error in Conduit's envelope.
 * A catch-all `*` route sends 404s, OPTIONS and routes registered after start to the core;
 * malformed URLs reach it through `frameworkErrors`.
 *
 * @example
 * const server = new FastifyServerAdapter(runtime, { port: 3000 });
 * await server.initialize();
 * const app = server.getFrameworkInstance(); // the real Fastify instance
 * app.get("/native", async () => ({ native: true }));
 * await server.start();
 */
export class FastifyServerAdapter extends NodeServerAdapter<ConduitFastifyApp> {
  readonly framework = "fastify" as const;

  protected createApp(routes: RegisteredRoute[]): ConduitFastifyApp {
    const app = Fastify({
      // The base adapter calls `listen` on this server; Fastify only routes.
      serverFactory: (handler) => createServer(handler),
      // Conduit's table ignores a trailing slash and matches case-sensitively.
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
      exposeHeadRoutes: true,
      // Malformed `%` escapes and over-long params: the core answers (400 / 404 envelope).
      frameworkErrors: (_error, request, reply) => this.takeOver(request, reply),
    }) as unknown as ConduitFastifyApp;

    for (const route of routes) {
      const url = nativeRoutePath(route.fullPath, "find-my-way");
      if (route.method === "GET") {
        // Fastify never parses GET/HEAD bodies: the plain handler is the fast path.
        app.route({ method: "GET", url, handler: (request, reply) => this.takeOver(request, reply, route) });
        continue;
      }
      app.route({ method: route.method, url, preParsing: this.preParsing(route), handler: async () => undefined });
    }
    // Everything no route matched (404, OPTIONS, late routes), as a route so its own hook
    // runs before Fastify would parse a body: no hook on the user's or Conduit's routes.
    app.route({ method: FALLBACK_METHODS, url: "*", preParsing: this.preParsing(), handler: async () => undefined });
    // Methods outside that list (e.g. PROPFIND) reach Fastify's not-found handler.
    app.setNotFoundHandler((request, reply) => this.takeOver(request, reply));
    return app;
  }

  protected async createHttpServer(app: ConduitFastifyApp): Promise<Server> {
    await app.ready();
    return app.server;
  }

  protected override async disposeApp(app: ConduitFastifyApp): Promise<void> {
    await app.close();
  }

  private preParsing(route?: RegisteredRoute): preParsingHookHandler {
    return takeOverBeforeParsing(this.handler, route);
  }

  private takeOver(request: FastifyRequest, reply: FastifyReply, route?: RegisteredRoute): void {
    takeOver(this.handler, request, reply, route);
  }
}

/** The entry the core's `createServer` loads; `options.defaultMiddleware: false` skips the default stack. */
export const createAdapter = createAdapterFactory(FastifyServerAdapter);
