import { type IncomingMessage, type Server, createServer } from "node:http";
import { type HttpBindings, getRequestListener } from "@hono/node-server";
// Imported statically on purpose: the marker must be built before getRequestListener swaps in
// @hono/node-server's lightweight global Response, whose instances skip the "already sent" check
// (loaded lazily, it made Node write headers twice).
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { type RegisteredRoute, createAdapterFactory } from "@conduit-ai/server-core";
import { NodeServerAdapter, handleNodeRequest } from "@conduit-ai/server-core/node";
import { handleWebRequest } from "@conduit-ai/server-core/web";
import { type Context, Hono } from "hono";

export type ConduitHonoApp = Hono<{ Bindings: HttpBindings }>;

declare module "@conduit-ai/server-core" {
  /** `createServer(runtime, {framework: "hono"})` → `getFrameworkInstance()` is this app type. */
  interface FrameworkApps {
    hono: ConduitHonoApp;
  }
}

/**
 * Conduit on Hono (the default adapter). Conduit's routes are mounted on Hono's router;
 * `getFrameworkInstance()` is the Hono app, open to native routes and middleware.
 *
 * @example
 * const server = new HonoServerAdapter(runtime, { port: 3000 });
 * server.getFrameworkInstance(); // after initialize(): the Hono app
 */
export class HonoServerAdapter extends NodeServerAdapter<ConduitHonoApp> {
  readonly framework = "hono" as const;
  /** How many entries of `app.routes` are Conduit's own; more means a user added native routes or middleware. */
  private ownRouteCount = 0;
  /** Set once a user gives the app a `notFound` handler of their own. */
  private nativeNotFound = false;

  protected createApp(routes: RegisteredRoute[]): ConduitHonoApp {
    const app: ConduitHonoApp = new Hono();
    for (const route of routes) app.on(route.method, route.fullPath, (c) => this.serve(c, route));
    // Routes added after the app was built, OPTIONS, 404: the core decides.
    app.notFound((c) => this.serve(c));
    this.ownRouteCount = app.routes.length;
    // A user's own notFound handler must see the requests no route matched: it turns the direct path off.
    const setNotFound = app.notFound.bind(app);
    app.notFound = (handler) => {
      this.nativeNotFound = true;
      return setNotFound(handler);
    };
    return app;
  }

  /**
   * True while the app holds only what Conduit put there: Hono would route every request to a
   * Conduit route or to the core's 404, so the core can take the request itself. That skips
   * @hono/node-server's web `Request` and Hono's context and router (measured with
   * `bench:gateway`: ≈ 4 KB allocated per request, and their CPU).
   */
  private servesAlone(app: ConduitHonoApp): boolean {
    return !this.nativeNotFound && app.routes.length === this.ownRouteCount;
  }

  protected createHttpServer(app: ConduitHonoApp): Server {
    // The listener serves HTTP/1.1 here: the bindings are HttpBindings.
    const fetch = (request: Request, env: HttpBindings) =>
      request.method === "HEAD" ? fetchHead(app, request, env) : app.fetch(request, env);
    const listener = getRequestListener(fetch as (request: Request, env: unknown) => Response | Promise<Response>);
    return createServer((incoming, outgoing) => {
      // Targets @hono/node-server cannot turn into a web Request (it would answer a bare 400): the core answers them, as on the other adapters.
      if (this.servesAlone(app) || !convertible(incoming)) void handleNodeRequest(this.handler, incoming, outgoing);
      else void listener(incoming, outgoing);
    });
  }

  private async serve(c: Context<{ Bindings: HttpBindings }>, route?: RegisteredRoute): Promise<Response> {
    const { incoming, outgoing } = c.env ?? {};
    if (incoming && outgoing) {
      // On Node, answer through the shared Node bridge: no web Request/Response round trip
      // (measured: that conversion cost most of the adapter's throughput).
      await handleNodeRequest(this.handler, incoming, outgoing, route);
      return RESPONSE_ALREADY_SENT;
    }
    // Elsewhere (`app.request()`, other runtimes): the web-standard bridge.
    return handleWebRequest(this.handler, c.req.raw, { clientAddress: "" }, route);
  }
}

/** `OPTIONS *`, absolute-form or backslashed targets and requests without `Host` have no web `Request` URL. */
function convertible(request: IncomingMessage): boolean {
  const url = request.url ?? "";
  return request.headers.host !== undefined && url.startsWith("/") && !url.split("?")[0]?.includes("\\");
}

/**
 * Hono answers HEAD by running the GET route and wrapping its response in a new one, which
 * loses `RESPONSE_ALREADY_SENT` for @hono/node-server: it would write headers a second time
 * (and log ERR_HTTP_HEADERS_SENT). When the core already answered, say so again.
 */
async function fetchHead(app: ConduitHonoApp, request: Request, env: HttpBindings): Promise<Response> {
  const response = await app.fetch(request, env);
  return env.outgoing.headersSent ? RESPONSE_ALREADY_SENT : response;
}

/** The entry the core's `createServer` loads; `options.defaultMiddleware: false` skips the default stack. */
export const createAdapter = createAdapterFactory(HonoServerAdapter);
