import { type IncomingMessage, type Server, STATUS_CODES, type ServerResponse, createServer } from "node:http";
import { type RegisteredRoute, createAdapterFactory } from "@conduit-ai/server-core";
import { type NodeRequestOptions, NodeServerAdapter, handleNodeRequest, nativeRoutePath } from "@conduit-ai/server-core/node";
import express, { type Express, type Request, type Response, type Router } from "express";

type RouterMethod = "get" | "post" | "put" | "delete" | "patch" | "options";

/** Requests whose response Conduit owns: nothing Express reports afterwards may write to them. */
const servedByConduit = new WeakSet<IncomingMessage>();

declare module "@conduit-ai/server-core" {
  /** `createServer(runtime, {framework: "express"})` → `getFrameworkInstance()` is this app type. */
  interface FrameworkApps {
    express: Express;
  }
}

/**
 * Conduit on Express 5. Conduit's routes live on a native `express.Router` (case
 * sensitive, like Conduit's own table) that is mounted when the server starts, after the
 * user's native middleware and routes; anything nobody answered goes to the core, so 404,
 * OPTIONS and malformed paths get Conduit's envelope instead of Express' HTML page.
 *
 * @example
 * const server = new ExpressServerAdapter(runtime, { port: 3000 });
 * await server.initialize();
 * const app = server.getFrameworkInstance(); // the real Express app
 * app.get("/native", (request, response) => response.send("native"));
 * await server.start();
 */
export class ExpressServerAdapter extends NodeServerAdapter<Express> {
  readonly framework = "express" as const;
  /** The Conduit router of each app, mounted on start so the user's own middleware runs first. */
  private readonly conduitRouters = new WeakMap<Express, Router>();

  protected createApp(routes: RegisteredRoute[]): Express {
    const app = express();
    // Conduit sets its own headers; Express' advertisement would differ from the other adapters.
    app.disable("x-powered-by");
    const router = express.Router({ caseSensitive: true });
    const optionsPaths = new Set<string>();
    for (const route of routes) {
      const path = nativeRoutePath(route.fullPath, "path-to-regexp");
      router[route.method.toLowerCase() as RouterMethod](path, (request: Request, response: Response) =>
        this.serve(request, response, route),
      );
      if (route.method !== "OPTIONS") optionsPaths.add(path);
    }
    // Express' router would answer OPTIONS itself ("GET,HEAD" in a text body): the core decides.
    for (const path of optionsPaths) router.options(path, (request: Request, response: Response) => this.serve(request, response));
    this.conduitRouters.set(app, router);
    return app;
  }

  protected createHttpServer(app: Express): Server {
    const router = this.conduitRouters.get(app);
    if (router) {
      app.use(router);
      this.conduitRouters.delete(app);
    }
    // Express calls `done` when nothing answered (or an error escaped): Conduit's fallback replaces its final handler.
    const listener = app as unknown as (request: IncomingMessage, response: ServerResponse, done: (error?: unknown) => void) => void;
    return createServer((request, response) => listener(request, response, (error) => this.fallback(request, response, error)));
  }

  private serve(request: IncomingMessage & { body?: unknown }, response: ServerResponse, route?: RegisteredRoute): void {
    servedByConduit.add(request);
    // A user's `express.json()` may already have read the stream: the bridge then takes its result.
    const options: NodeRequestOptions = { frameworkBody: request.body };
    void handleNodeRequest(this.handler, request, response, route, options);
  }

  private fallback(request: IncomingMessage, response: ServerResponse, error: unknown): void {
    // Express' router may still report an error after a Conduit handler returned; the core already answers.
    if (servedByConduit.has(request)) return;
    if (error === undefined || error === null || error === "route" || error === "router" || isParamDecodeError(error)) {
      // 404, OPTIONS, routes registered after start, malformed percent-encoding: the core answers.
      this.serve(request, response);
      return;
    }
    // An error from the user's own native middleware or route: Express' plain answer, without a stack.
    const status = httpStatusOf(error);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.statusCode = status;
    response.setHeader("content-type", "text/plain; charset=utf-8");
    response.end(STATUS_CODES[status] ?? "Error");
  }
}

/** Express' router fails with 400 "Failed to decode param" on a malformed `%` escape. */
function isParamDecodeError(error: unknown): boolean {
  return error instanceof URIError || (httpStatusOf(error) === 400 && /decode param/i.test((error as Error).message ?? ""));
}

function httpStatusOf(error: unknown): number {
  const candidate = (error as { status?: unknown; statusCode?: unknown } | undefined) ?? {};
  const status = Number(candidate.status ?? candidate.statusCode);
  return Number.isInteger(status) && status >= 400 && status < 600 ? status : 500;
}

/** The entry the core's `createServer` loads; `options.defaultMiddleware: false` skips the default stack. */
export const createAdapter = createAdapterFactory(ExpressServerAdapter);
