import type { Server } from "node:http";
import { type HttpBindings, createAdaptorServer } from "@hono/node-server";
import { BaseServerAdapter, type RegisteredRoute, type Runtime, type ServerAdapterConfig } from "@conduit-ai/server-core";
import { clientDisconnectSignal } from "@conduit-ai/server-core/node";
import { handleWebRequest } from "@conduit-ai/server-core/web";
import { type Context, Hono } from "hono";

export type ConduitHonoApp = Hono<{ Bindings: HttpBindings }>;

/**
 * Conduit on Hono (the default adapter). Conduit's routes are mounted on Hono's router;
 * `getFrameworkInstance()` is the Hono app, open to native routes and middleware.
 *
 * @example
 * const server = new HonoServerAdapter(runtime, { port: 3000 });
 * server.getFrameworkInstance(); // after initialize(): the Hono app
 */
export class HonoServerAdapter extends BaseServerAdapter<ConduitHonoApp> {
  readonly framework = "hono" as const;

  protected createApp(routes: RegisteredRoute[]): ConduitHonoApp {
    const app: ConduitHonoApp = new Hono();
    for (const route of routes) app.on(route.method, route.fullPath, (c) => this.serve(c, route));
    // Routes added after the app was built, OPTIONS, 404: the core decides.
    app.notFound((c) => this.serve(c));
    return app;
  }

  protected createHttpServer(app: ConduitHonoApp): Server {
    return createAdaptorServer({ fetch: app.fetch }) as Server;
  }

  private serve(c: Context<{ Bindings: HttpBindings }>, route?: RegisteredRoute): Promise<Response> {
    const { incoming, outgoing } = c.env ?? {};
    const options = incoming
      ? {
          clientAddress: incoming.socket.remoteAddress ?? "",
          signal: clientDisconnectSignal(outgoing),
          // A client gone before we got here already fired `close`: finish at once.
          onWritten: (done: () => void) => (outgoing.destroyed || outgoing.socket?.destroyed !== false ? done() : outgoing.once("close", done)),
        }
      : { clientAddress: "" };
    return handleWebRequest(this.handler, c.req.raw, options, route);
  }
}

/** The entry the core's `createServer` loads. */
export function createAdapter(runtime: Runtime | undefined, config: ServerAdapterConfig = {}): HonoServerAdapter {
  return new HonoServerAdapter(runtime, config);
}
