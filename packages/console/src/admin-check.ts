import { createHash } from "node:crypto";
import type { AuthenticatedUser, ServerContext } from "@conduit-ai/server-core";
import type { ConsolePermission, ConsolePrincipal } from "./console-principal.js";

/** Who a request is to the admin API: someone with a role on it, someone authenticated without one, or nobody known. */
export type AdminVerdict = "admin" | "forbidden" | "unauthenticated";

type CheckContext = Pick<ServerContext, "header" | "user">;

/**
 * Governance's admin check, the one rule for who may use the admin API and as what:
 * `governance.checkAdmin`, or `createAdminCheck({keys})` of `@conduit-ai/governance` when the
 * server has no `keys` section. It reads `Authorization: Bearer <admin key>` and `ctx.user`
 * (the server's auth). With `identify` the console knows the role (a plain verdict function
 * makes everyone it admits an `admin`); with `delegate` single sign-on sessions can be
 * forwarded to `/admin/*`; `allows` is the role rule the console reflects.
 */
export type AdminRequestCheck = ((ctx: CheckContext) => AdminVerdict) & {
  identify?(ctx: CheckContext): ConsolePrincipal | "forbidden" | "unauthenticated";
  delegate?(principal: ConsolePrincipal): { token: string; release(): void };
  allows?(role: string, permission: ConsolePermission): boolean;
};

/** The server's own auth: the user a credential names (its roles), or null. */
export type CredentialUserResolver = (
  credential: string,
) => Promise<Pick<AuthenticatedUser, "roles"> | null> | Pick<AuthenticatedUser, "roles"> | null;

/** Bearer presentation of a credential, as the admin API reads an admin key. */
const asBearer = (credential: string) => (name: string) => (name.toLowerCase() === "authorization" ? `Bearer ${credential}` : undefined);

/**
 * The console's question — "who is this credential to the admin API?" — asked of governance's
 * check exactly as the admin API asks it: the credential presented as `Authorization: Bearer`,
 * and, when the server has its own auth, the user that credential names as `ctx.user`. The
 * console keeps no rule of its own, so it never admits someone the admin API would refuse, or
 * the other way round. Undefined when the credential has no role there.
 *
 * @example
 * import { createAdminCheck } from "@conduit-ai/governance";
 * const principalOf = adminCredentialPrincipal(createAdminCheck({ keys: adminKeys }));
 * await principalOf(adminKeys[0]); // { kind: "admin-key", id: "ak_…", role: "admin" }
 */
export function adminCredentialPrincipal(
  check: AdminRequestCheck,
  resolveUser?: CredentialUserResolver,
): (credential: string) => Promise<ConsolePrincipal | undefined> {
  const ask = (ctx: CheckContext): ConsolePrincipal | undefined => {
    if (check.identify) {
      const found = check.identify(ctx);
      return typeof found === "string" ? undefined : found;
    }
    return check(ctx) === "admin" ? { kind: ctx.user ? "user" : "admin-key", id: ctx.user?.id ?? "admin", role: "admin" } : undefined;
  };
  return async (credential) => {
    if (typeof credential !== "string" || credential === "") return undefined;
    const byKey = ask({ header: asBearer(credential), user: undefined });
    if (byKey) return byKey;
    const found = resolveUser ? await resolveUser(credential) : null;
    if (!found) return undefined;
    const named = found as { id?: unknown; email?: unknown };
    const user: AuthenticatedUser = {
      id: typeof named.id === "string" ? named.id : "console-sign-in",
      roles: [...found.roles],
      permissions: [],
      ...(typeof named.email === "string" ? { email: named.email } : {}),
    };
    return ask({ header: asBearer(credential), user });
  };
}

/**
 * Whether a credential may sign in to the console (it has a role on the admin API).
 *
 * @example
 * const verifyAdmin = adminCredentialCheck(createAdminCheck({ keys: adminKeys }));
 * await verifyAdmin(adminKeys[0]); // true
 */
export function adminCredentialCheck(
  check: AdminRequestCheck,
  resolveUser?: CredentialUserResolver,
): (credential: string) => Promise<boolean> {
  const principalOf = adminCredentialPrincipal(check, resolveUser);
  return async (credential) => (await principalOf(credential)) !== undefined;
}

/**
 * Whether `credential` is one of the admin keys (not a user of the server's auth): the check
 * admits it with no user at all. The console presents such a key as `Bearer`, and any other
 * credential the way the server's own auth reads it.
 *
 * @example
 * isAdminKey(createAdminCheck({ keys: adminKeys }), adminKeys[0]); // true
 */
export function isAdminKey(check: AdminRequestCheck, credential: string): boolean {
  return check({ header: asBearer(credential), user: undefined }) === "admin";
}

/** SHA-256 of a credential as hex: what a session record names instead of the credential. */
export function credentialDigest(credential: string): string {
  return createHash("sha256").update(credential, "utf8").digest("hex");
}

/**
 * What a role may do in the console: governance's own rule (`check.allows`; the admin API
 * enforces it again on every forwarded call). A check without it (a plain verdict function)
 * knows only admins.
 *
 * @example
 * consoleAllows(governance.checkAdmin, "viewer", "keys.write"); // false
 */
export function consoleAllows(check: AdminRequestCheck, role: string, permission: ConsolePermission): boolean {
  return check.allows ? check.allows(role, permission) : role === "admin";
}

/** Every permission the console reflects (the session answer lists those the role has). */
export const CONSOLE_PERMISSIONS: readonly ConsolePermission[] = [
  "keys.read",
  "keys.write",
  "teams.read",
  "teams.write",
  "usage.read",
  "audit.read",
  "console.read",
  "accounts.write",
];
