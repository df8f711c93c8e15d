import { type MiddlewareDefinition, ServerAdapterError, type ServerContext } from "@conduit-ai/server-core";
import { type AdminRequestCheck, consoleAllows } from "./admin-check.js";
import type { ConsolePermission, ConsolePrincipal } from "./console-principal.js";
import type { ConsoleSessions } from "./console-sessions.js";

/** What the guard leaves a guarded route: the signed-in principal and, for an admin-key session, its credential. */
export interface SignedIn {
  principal: ConsolePrincipal;
  credential?: string;
}

const SIGNED_IN = "conduit.console.signedIn";

const roleForbidden = (principal: ConsolePrincipal, permission: ConsolePermission) =>
  new ServerAdapterError(`The role "${principal.role}" may not do this (${permission})`, {
    code: "ADMIN_ROLE_FORBIDDEN",
    statusCode: 403,
    details: { role: principal.role, needs: permission },
  });

/**
 * The one guard of the console's signed-in routes: a live session (else 401), and, when a route
 * names a `permission`, a role that has it (else 403 `ADMIN_ROLE_FORBIDDEN`). The session routes
 * themselves (sign-in, sign-out, single sign-on) are the only console routes without it.
 *
 * @example
 * route("GET", "/metrics", handler, { middleware: [guard("console.read")] });
 */
export function createConsoleGuard(sessions: ConsoleSessions, check: AdminRequestCheck) {
  return (permission?: ConsolePermission): MiddlewareDefinition => ({
    name: permission ? `console-guard:${permission}` : "console-guard",
    handler: async (ctx, next) => {
      const { principal, credential } = await sessions.require(ctx);
      if (permission !== undefined && !consoleAllows(check, principal.role, permission)) throw roleForbidden(principal, permission);
      ctx.state[SIGNED_IN] = { principal, ...(credential !== undefined ? { credential } : {}) } satisfies SignedIn;
      await next();
    },
  });
}

/** The principal the guard admitted (a route without the guard has none: refused, never assumed). */
export function signedIn(ctx: Pick<ServerContext, "state">): SignedIn {
  const found = ctx.state[SIGNED_IN] as SignedIn | undefined;
  if (found === undefined) throw new ServerAdapterError("This console route is mounted without its guard", { statusCode: 500 });
  return found;
}
