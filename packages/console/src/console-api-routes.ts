import {
  type RequestFeed,
  type RequestHandler,
  type RouteDefinition,
  ServerAdapterError,
  type ServerContext,
  joinPaths,
} from "@conduit-ai/server-core";
import type { ConsoleSessions } from "./console-sessions.js";
import { forwardInProcess } from "./forward.js";

/** Taking accounts out of rotation and back (the proxy's pool), when the server has one. */
export interface ConsoleAccountControl {
  disable(accountId: string): Promise<void>;
  enable(accountId: string): Promise<void>;
}

export interface ConsoleApiDeps {
  prefix: string;
  sessions: ConsoleSessions;
  handler: RequestHandler;
  feed: RequestFeed;
  /** The server's `basePath`, where `/metrics` and `/health/detailed` are. */
  basePath: string;
  /** The credential `/accounts` and `/limits` ask for (a proxy client key); absent → no accounts pages. */
  proxyClientKey?: string;
  accountControl?: ConsoleAccountControl;
}

const notAvailable = (what: string) =>
  new ServerAdapterError(`${what} is not available on this server`, { code: "CONSOLE_FEATURE_UNAVAILABLE", statusCode: 404 });

/**
 * The console's own API under `<prefix>/api`: the session (`POST` signs in, `GET` reads it,
 * `DELETE` signs out), the live request feed (SSE), and the data the pages show, each fetched
 * from the server's own routes in process with the session's credential (`/admin/*` → the
 * governance admin API; `/accounts`, `/limits` → the proxy; `/metrics`, `/health` → the core).
 */
export function createConsoleApiRoutes(deps: ConsoleApiDeps): RouteDefinition[] {
  const api = (path: string) => joinPaths(deps.prefix, "api", path);
  const { sessions } = deps;
  const route = (
    method: RouteDefinition["method"],
    path: string,
    handler: (ctx: ServerContext) => unknown,
    extra: Partial<RouteDefinition> = {},
  ) => ({ method, path: api(path), absolute: true, tags: ["console"], handler, ...extra }) as RouteDefinition;

  const forwardAdmin = async (ctx: ServerContext) => {
    const { credential } = await sessions.require(ctx);
    const rest = ctx.path.slice(ctx.path.indexOf("/api/admin/") + "/api/admin/".length);
    // Segments re-encoded one by one: a decoded `..` or `/` can never step out of `/admin/`.
    const segments = rest.split("/").filter((segment) => segment !== "");
    if (segments.some((segment) => segment === "." || segment === "..")) throw notAvailable("That path");
    return forwardInProcess(deps.handler, ctx, { path: joinPaths("/admin", ...segments.map(encodeURIComponent)), credential });
  };
  const forwardProxy = (path: string) => async (ctx: ServerContext) => {
    await sessions.require(ctx);
    if (deps.proxyClientKey === undefined) throw notAvailable("The proxy");
    return forwardInProcess(deps.handler, ctx, { path, credential: deps.proxyClientKey });
  };
  const control = (action: "disable" | "enable") => async (ctx: ServerContext) => {
    await sessions.require(ctx);
    if (deps.accountControl === undefined) throw notAvailable("Account control");
    await deps.accountControl[action]((ctx.params as { id: string }).id);
    return { id: (ctx.params as { id: string }).id, status: action === "disable" ? "disabled" : "active" };
  };

  return [
    route("POST", "/session", async (ctx) => {
      const body = (await ctx.readBody()) as { credential?: unknown } | undefined;
      const session = await sessions.signIn(ctx, body?.credential);
      return { expiresAt: new Date(session.expiresAt).toISOString() };
    }),
    route("GET", "/session", async (ctx) => {
      const { session } = await sessions.require(ctx);
      return {
        signedIn: true,
        expiresAt: new Date(session.expiresAt).toISOString(),
        features: { accounts: deps.proxyClientKey !== undefined, accountControl: deps.accountControl !== undefined },
      };
    }),
    route("DELETE", "/session", async (ctx) => {
      await sessions.signOut(ctx);
      return { signedIn: false };
    }),
    route(
      "GET",
      "/live",
      async (ctx) => {
        await sessions.require(ctx);
        return deps.feed.stream(ctx.abortSignal);
      },
      { streaming: true, summary: "Finished requests as they happen (SSE): time, key, model, status, latency, tokens" },
    ),
    ...(["GET", "POST", "PATCH", "DELETE"] as const).map((method) => route(method, "/admin/*", forwardAdmin, { rawBody: true })),
    route("GET", "/accounts", forwardProxy("/accounts")),
    route("GET", "/limits", forwardProxy("/limits")),
    route("POST", "/accounts/:id/disable", control("disable")),
    route("POST", "/accounts/:id/enable", control("enable")),
    route("GET", "/metrics", async (ctx) => {
      const { credential } = await sessions.require(ctx);
      return forwardInProcess(deps.handler, ctx, { path: joinPaths(deps.basePath, "metrics"), credential, accept: "application/json" });
    }),
    route("GET", "/health", async (ctx) => {
      const { credential } = await sessions.require(ctx);
      return forwardInProcess(deps.handler, ctx, { path: joinPaths(deps.basePath, "health", "detailed"), credential });
    }),
  ];
}
