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
import { type RequestFeed, checkReadiness } from "@conduit-ai/server-core/internal";
import { joinPaths } from "@conduit-ai/server-core/node";
import { type AdminRequestCheck, CONSOLE_PERMISSIONS, consoleAllows } from "./admin-check.js";
import { type ConsoleAuditLog, type ConsolePermission, consoleAuditEvent } from "./console-principal.js";
import { createConsoleGuard, signedIn } from "./console-guard.js";
import type { ConsoleSessions } from "./console-sessions.js";
import { type ConsoleSsoOptions, createSsoRoutes, endSessionUrl } from "./console-sso.js";
import { type CredentialPresenter, forwardInProcess, presentAsBearer } from "./forward.js";
import type { ConsoleSessionStore } from "./session-store.js";

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
  /** Governance's admin check: the role rule (`allows`) and stand-in credentials for single sign-on sessions (`delegate`). */
  check: AdminRequestCheck;
  /** Single sign-on (config `console.sso`). */
  sso?: ConsoleSsoOptions;
  /** The session store (single sign-ons under way are kept there too). */
  store: ConsoleSessionStore;
  /** Where account control is recorded (sign-ins and sign-outs are recorded by `sessions`). */
  audit?: ConsoleAuditLog;
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

  const guard = createConsoleGuard(sessions, deps.check);
  /** A route behind the group's guard: a live session, and the role's `permission` when one is named. */
  const guarded = (
    method: RouteDefinition["method"],
    path: string,
    permission: ConsolePermission | undefined,
    handler: (ctx: ServerContext) => unknown,
    extra: Partial<RouteDefinition> = {},
  ) => route(method, path, handler, { ...extra, middleware: [guard(permission)] });
  const forwardAdmin = async (ctx: ServerContext) => {
    const { credential, principal } = signedIn(ctx);
    const rest = ctx.path.slice(ctx.path.indexOf("/api/admin/") + "/api/admin/".length);
    // Segments re-encoded one by one: a decoded `..` or `/` can never step out of `/admin/`.
    const segments = rest.split("/").filter((segment) => segment !== "");
    if (segments.some((segment) => segment === "." || segment === "..")) throw notAvailable("That path");
    const path = joinPaths("/admin", ...segments.map(encodeURIComponent));
    if (credential !== undefined)
      return forwardInProcess(deps.handler, ctx, { path, credential, ...(deps.present ? { present: deps.present } : {}) });
    // A single sign-on session holds no credential: a stand-in for its principal, valid in this process for this call only.
    if (deps.check.delegate === undefined) throw notAvailable("Single sign-on sessions on the admin API");
    const delegated = deps.check.delegate(principal);
    try {
      return await forwardInProcess(deps.handler, ctx, { path, credential: delegated.token, present: presentAsBearer });
    } finally {
      delegated.release();
    }
  };
  const control = (action: "disable" | "enable") => async (ctx: ServerContext) => {
    const { principal } = signedIn(ctx);
    const act = deps.accounts?.[action];
    if (act === undefined) throw notAvailable("Account control");
    const id = (ctx.params as { id: string }).id;
    const record = async (outcome: "success" | "failure") =>
      deps.audit?.append(consoleAuditEvent(ctx, principal, { action: `account.${action}`, target: { type: "account", id } }, outcome));
    try {
      await act.call(deps.accounts, id);
    } catch (error) {
      await record("failure");
      throw error;
    }
    await record("success");
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
      if (current === undefined) return { signedIn: false, ...(deps.sso ? { sso: { name: deps.sso.name } } : {}) };
      const { session, principal } = current;
      return {
        signedIn: true,
        expiresAt: new Date(session.expiresAt).toISOString(),
        actor: { kind: principal.kind, id: principal.id, ...(principal.hint ? { hint: principal.hint } : {}) },
        role: principal.role,
        // What the console shows: the admin API enforces the same rule again on every call.
        permissions: CONSOLE_PERMISSIONS.filter((permission) => consoleAllows(deps.check, principal.role, permission)),
        ...(session.provider ? { provider: session.provider } : {}),
        features: {
          accounts: deps.accounts !== undefined,
          accountControl: deps.accounts?.disable !== undefined && deps.accounts.enable !== undefined,
        },
      };
    }),
    route("DELETE", "/session", async (ctx) => {
      const ended = await sessions.signOut(ctx);
      // A single sign-on session: the provider's own session can be ended too, when it offers that.
      const url = ended?.provider && deps.sso ? await endSessionUrl(ctx, deps.prefix, deps.sso) : undefined;
      return { signedIn: false, ...(url ? { endSessionUrl: url } : {}) };
    }),
    ...(deps.sso
      ? createSsoRoutes({
          prefix: deps.prefix,
          sso: deps.sso,
          sessions,
          store: deps.store,
          route: (method, path, handler) => route(method, path, handler),
        })
      : []),
    guarded("GET", "/live", "console.read", (ctx) => deps.feed.stream(ctx.abortSignal), {
      streaming: true,
      summary: "Finished requests as they happen (SSE): time, key, model, status, latency, tokens",
    }),
    // The admin API checks the role itself on every forwarded call: the guard asks only for a session.
    ...(["GET", "POST", "PATCH", "DELETE"] as const).map((method) =>
      guarded(method, "/admin/*", undefined, forwardAdmin, { rawBody: true }),
    ),
    guarded("GET", "/accounts", "console.read", async () => {
      if (deps.accounts === undefined) throw notAvailable("The proxy");
      return { accounts: await deps.accounts.rows() };
    }),
    guarded("POST", "/accounts/:id/disable", "accounts.write", control("disable")),
    guarded("POST", "/accounts/:id/enable", "accounts.write", control("enable")),
    guarded("GET", "/metrics", "console.read", async () => {
      const metrics = deps.metrics();
      if (metrics === undefined) throw notAvailable("Metrics (enableMetrics)");
      return rawResponse(JSON.stringify(await metrics.registry.getMetricsAsJSON()), { headers: noStore });
    }),
    guarded("GET", "/health", "console.read", async () => {
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
