import {
  type HealthSource,
  type RequestHandler,
  type RouteDefinition,
  ServerAdapterError,
  type ServerContext,
  VERSION,
  isStoreUnavailable,
  rawResponse,
} from "@conduit-ai/server-core";
import type { ServerMetrics } from "@conduit-ai/server-core/metrics";
import { type RequestFeed, checkReadiness } from "@conduit-ai/server-core/middleware";
import { joinPaths } from "@conduit-ai/server-core/node";
import type { ConsoleSessions } from "./console-sessions.js";
import { type CredentialPresenter, forwardInProcess } from "./forward.js";

/**
 * The proxy's account pool as the Accounts page reads it (`pool.rows()`: status, cooldown,
 * quota, tokens and cost — never a secret), and, when given, taking an account out of rotation and back.
 * `disable`/`enable` reject an id they do not hold with a 404 error (the proxy pool's
 * `UnknownAccountError`), which the route answers as is: an operator's typo is never a 200.
 */
export interface ConsoleAccounts {
  rows(): Promise<unknown[]>;
  disable?(accountId: string): Promise<void>;
  enable?(accountId: string): Promise<void>;
}

export interface ConsoleApiDeps {
  prefix: string;
  sessions: ConsoleSessions;
  handler: RequestHandler;
  feed: RequestFeed;
  /** The server's metrics (`enableMetrics`), read in process for the Overview. */
  metrics: () => ServerMetrics | undefined;
  /** The server itself, for the Health page (the same check as `/health/detailed`). */
  health: HealthSource;
  /** How a session's credential is presented on the forwarded `/admin/*` request (default `Authorization: Bearer`). */
  present?: CredentialPresenter;
  accounts?: ConsoleAccounts;
}

const notAvailable = (what: string) =>
  new ServerAdapterError(`${what} is not available on this server`, { code: "CONSOLE_FEATURE_UNAVAILABLE", statusCode: 404 });

/**
 * The console's own API under `<prefix>/api`: the session (`POST` signs in, `GET` reads it,
 * `DELETE` signs out), the live request feed (SSE), metrics, health and accounts read in process,
 * and `/admin/*` forwarded in process to the governance admin API with the session's credential
 * (`present`: an admin key as `Authorization: Bearer`, a user of the server's auth as that auth
 * reads it), so the admin API needs no knowledge of console sessions.
 */
export function createConsoleApiRoutes(deps: ConsoleApiDeps): RouteDefinition[] {
  const api = (path: string) => joinPaths(deps.prefix, "api", path);
  const { sessions } = deps;
  const route = (
    method: RouteDefinition["method"],
    path: string,
    handler: (ctx: ServerContext) => unknown,
    extra: Partial<RouteDefinition> = {},
  ) =>
    // Out of the per-address request limit: a page of many calls must not lock an office out; failed
    // sign-ins have their own limiter (ConsoleSessions), and every other call needs a live session.
    ({ method, path: api(path), absolute: true, tags: ["console"], cors: false, rateLimit: false, handler, ...extra }) as RouteDefinition;

  const forwardAdmin = async (ctx: ServerContext) => {
    const { credential } = await sessions.require(ctx);
    const rest = ctx.path.slice(ctx.path.indexOf("/api/admin/") + "/api/admin/".length);
    // Segments re-encoded one by one: a decoded `..` or `/` can never step out of `/admin/`.
    const segments = rest.split("/").filter((segment) => segment !== "");
    if (segments.some((segment) => segment === "." || segment === "..")) throw notAvailable("That path");
    const path = joinPaths("/admin", ...segments.map(encodeURIComponent));
    return forwardInProcess(deps.handler, ctx, { path, credential, ...(deps.present ? { present: deps.present } : {}) });
  };
  const control = (action: "disable" | "enable") => async (ctx: ServerContext) => {
    await sessions.require(ctx);
    const act = deps.accounts?.[action];
    if (act === undefined) throw notAvailable("Account control");
    const id = (ctx.params as { id: string }).id;
    await act.call(deps.accounts, id);
    return { id, status: action === "disable" ? "disabled" : "active" };
  };
  const noStore = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

  return [
    route("POST", "/session", async (ctx) => {
      const body = (await ctx.readBody()) as { credential?: unknown } | undefined;
      const session = await sessions.signIn(ctx, body?.credential);
      return { expiresAt: new Date(session.expiresAt).toISOString() };
    }),
    route("GET", "/session", async (ctx) => {
      // Asking whether one is signed in is not an error: signed out is `{signedIn: false}`, nothing else.
      // A store outage is not "signed out": it stays 503 STORE_UNAVAILABLE, so the page says to wait.
      const current = await sessions.require(ctx).catch((error: unknown) => {
        if (isStoreUnavailable(error)) throw error;
        return undefined;
      });
      if (current === undefined) return { signedIn: false };
      const { session } = current;
      return {
        signedIn: true,
        expiresAt: new Date(session.expiresAt).toISOString(),
        features: {
          accounts: deps.accounts !== undefined,
          accountControl: deps.accounts?.disable !== undefined && deps.accounts.enable !== undefined,
        },
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
    route("GET", "/accounts", async (ctx) => {
      await sessions.require(ctx);
      if (deps.accounts === undefined) throw notAvailable("The proxy");
      return { accounts: await deps.accounts.rows() };
    }),
    route("POST", "/accounts/:id/disable", control("disable")),
    route("POST", "/accounts/:id/enable", control("enable")),
    route("GET", "/metrics", async (ctx) => {
      await sessions.require(ctx);
      const metrics = deps.metrics();
      if (metrics === undefined) throw notAvailable("Metrics (enableMetrics)");
      return rawResponse(JSON.stringify(await metrics.registry.getMetricsAsJSON()), { headers: noStore });
    }),
    route("GET", "/health", async (ctx) => {
      await sessions.require(ctx);
      const readiness = await checkReadiness(deps.health);
      return {
        status: readiness.ready ? "ok" : "degraded",
        version: VERSION,
        uptime: process.uptime(),
        state: readiness.state,
        dependencies: readiness.dependencies,
      };
    }),
  ];
}
