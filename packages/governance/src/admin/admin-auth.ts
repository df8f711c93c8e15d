import {
  AuthenticationError,
  AuthorizationError,
  type MiddlewareDefinition,
  type RouteGroup,
  ServerAdapterError,
  type ServerContext,
  storeCall,
} from "@conduit-ai/server-core";
import { type CredentialFailureGuard, parseBearer } from "@conduit-ai/server-core/internal";
import { joinPaths } from "@conduit-ai/server-core/node";
import type { AdminCheck, AdminVerdict } from "./admin-check.js";
import type { AdminPrincipal } from "../roles/admin-roles.js";

/** Where the admin guard leaves the caller's principal for the routes (`ctx.state`). */
const PRINCIPAL_STATE = "conduit.adminPrincipal";

/**
 * The caller the admin guard admitted (actor and role). Every admin route runs behind the guard,
 * so a route that finds none has been mounted without it: refused, never assumed to be an admin.
 */
export function adminPrincipalOf(ctx: Pick<ServerContext, "state">): AdminPrincipal {
  const principal = ctx.state[PRINCIPAL_STATE] as AdminPrincipal | undefined;
  if (principal === undefined) throw new AuthenticationError("An admin key is required (Authorization: Bearer)");
  return principal;
}

/** The credential a request presents: `Authorization: Bearer`, else `x-api-key`. */
function presentedCredential(header: (name: string) => string | undefined): string | undefined {
  return parseBearer(header("authorization")) || header("x-api-key") || undefined;
}

/**
 * The server's own auth middleware (and its authorization rules), made to let one request
 * through untouched: a request to one of the admin API's own routes (`routes`, e.g.
 * `governance.adminRoutes()`; matched by method and path, so another route under `/admin/` of
 * the application is not one) that carries a configured admin key (`Authorization: Bearer`,
 * compared by `check` in constant time). Every other request — any other credential on the
 * admin API, the admin key anywhere else — runs the middleware as before, and then the admin
 * guard decides: an admin key or a user with the admin role passes, another user gets 403.
 * Without this a server with api-key auth asked `/admin` for two credentials at once, and the
 * console (which presents only the admin key) got 401 on every admin page.
 *
 * With `failures`, a credential the server's auth refuses on an admin route counts as a failed
 * admin credential (the admin guard never sees it): guessing admin keys there meets the same
 * limiter (429 `TOO_MANY_FAILED_CREDENTIALS`) as on a server without its own auth.
 *
 * @example
 * const admin = { check: governance.checkAdmin, routes: governance.adminRoutes(), failures: governance.credentialFailures };
 * for (const middleware of authMiddleware) server.registerMiddleware(admitAdminKeysPast(middleware, admin));
 */
export function admitAdminKeysPast(
  middleware: MiddlewareDefinition,
  admin: {
    check: (ctx: Pick<ServerContext, "header" | "user">) => AdminVerdict;
    routes: RouteGroup | undefined;
    failures?: CredentialFailureGuard;
  },
): MiddlewareDefinition {
  // The admin API's routes are absolute (`/admin/...`): their full path is their path.
  const adminRoutes = new Set(
    (admin.routes?.routes ?? []).filter((route) => route.absolute).map((route) => `${route.method} ${joinPaths(route.path)}`),
  );
  if (adminRoutes.size === 0) return middleware;
  const { handler } = middleware;
  return {
    ...middleware,
    handler: async (ctx, next) => {
      const route = ctx.route;
      if (route === undefined || !adminRoutes.has(`${route.method} ${route.fullPath}`)) return handler(ctx, next);
      const header = (name: string) => ctx.header(name);
      // Asked with no user: only an admin key can make the check answer "admin" here.
      if (admin.check({ header, user: undefined }) === "admin") return next();
      // The console's forward was checked at its sign-in; anything else presented is counted if refused.
      const presented = ctx.inProcess === true ? undefined : (presentedCredential(header) ?? header("authorization"));
      const attempt = admin.failures && presented ? await admin.failures.check(ctx, presented) : undefined;
      let passed = false;
      try {
        return await handler(ctx, () => {
          passed = true;
          return next();
        });
      } catch (error) {
        // Refused by the server's auth itself (the admin guard, past it, counts its own refusals).
        if (attempt && !passed && ServerAdapterError.isInstance(error) && error.statusCode === 401) await admin.failures?.failed(attempt);
        throw error;
      }
    },
  };
}

/**
 * The admin surface's own guard, on every `/admin/*` route: an admin passes; an authenticated
 * caller without the role (the server's auth, or a valid virtual key) gets 403; anyone else 401.
 * A presented credential that is not an admin's counts against `failures` (per address and per
 * credential; 429 `TOO_MANY_FAILED_CREDENTIALS` past the limit) — except on an in-process
 * forward, which the console already checked.
 */
export function adminAuthMiddleware(
  check: Pick<AdminCheck, "identify">,
  isVirtualKey: (credential: string) => Promise<boolean>,
  failures?: CredentialFailureGuard,
): MiddlewareDefinition {
  return {
    name: "governance-admin-auth",
    handler: async (ctx, next) => {
      const presented = presentedCredential((name) => ctx.header(name));
      const guarded = failures !== undefined && presented !== undefined && ctx.inProcess !== true;
      const attempt = guarded ? await failures.check(ctx, presented) : undefined;
      const found = check.identify(ctx);
      if (typeof found !== "string") {
        if (attempt) await failures?.succeeded(attempt);
        ctx.state[PRINCIPAL_STATE] = found;
        return next();
      }
      const verdict: AdminVerdict = found;
      if (attempt) await failures?.failed(attempt);
      if (verdict === "forbidden") throw new AuthorizationError("The admin role is required");
      // Bounded: with the store hung or down the caller is simply not known (401), not kept waiting.
      const known = presented ? await storeCall("governance", () => isVirtualKey(presented)).catch(() => false) : false;
      if (known) throw new AuthorizationError("The admin role is required");
      ctx.setHeader("www-authenticate", 'Bearer realm="conduit-admin"');
      throw new AuthenticationError("An admin key is required (Authorization: Bearer)");
    },
  };
}
