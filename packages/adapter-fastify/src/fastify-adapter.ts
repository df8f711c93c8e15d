import { type Server, createServer } from "node:http";
import { type AdapterOptions, BaseServerAdapter, type RegisteredRoute, type Runtime, type ServerAdapterConfig } from "@conduit-ai/server-core";
import { type NodeRequestOptions, handleNodeRequest, nativeRoutePath } from "@conduit-ai/server-core/node";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

export type ConduitFastifyApp = FastifyInstance<Server>;

/**
 * Conduit on Fastify 5. Conduit's routes are native Fastify routes; each takes the
 * request over in its own `preParsing` hook (after the user's `onRequest`/`preParsing`
 * hooks), before Fastify's content-type parsing and body limit, so the core reads the raw
 * body with its own limits and answers every error in Conduit's envelope. 404s, OPTIONS,
 * malformed URLs and routes registered after start reach the core as well.
 *
 * @example
 * const server = new FastifyServerAdapter(runtime, { port: 3000 });
 * await server.initialize();
 * const app = server.getFrameworkInstance(); // the real Fastify instance
 * app.get("/native", async () => ({ native: true }));
 * await server.start();
 */
export class FastifyServerAdapter extends BaseServerAdapter<ConduitFastifyApp> {
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
      app.route({
        method: route.method,
        url: nativeRoutePath(route.fullPath, "find-my-way"),
        preParsing: (request, reply, _payload, done) => {
          this.takeOver(request, reply, route);
          done();
        },
        // Never reached: the preParsing hook hijacked the reply.
        handler: async () => undefined,
      });
    }
    // 404, OPTIONS and late routes: before Fastify would parse a body it has no route for.
    app.addHook("preParsing", (request, reply, _payload, done) => {
      if (request.is404) this.takeOver(request, reply);
      done();
    });
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

  /** Hands the raw request to the core; Fastify stops its lifecycle for a hijacked reply. */
  private takeOver(request: FastifyRequest, reply: FastifyReply, route?: RegisteredRoute): void {
    if (reply.sent) return;
    reply.hijack();
    const options: NodeRequestOptions = {};
    if (request.raw.readableEnded && request.body !== undefined) options.parsedBody = { value: request.body };
    void handleNodeRequest(this.handler, request.raw, reply.raw, route, options);
  }
}

/** The entry the core's `createServer` loads; `options.defaultMiddleware: false` skips the default stack. */
export function createAdapter(runtime: Runtime | undefined, config: ServerAdapterConfig = {}, options: AdapterOptions = {}): FastifyServerAdapter {
  return new FastifyServerAdapter(runtime, config, options);
}
