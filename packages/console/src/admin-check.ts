import { createHash } from "node:crypto";
import type { AuthenticatedUser, ServerContext } from "@conduit-ai/server-core";

/** Who a request is to the admin API: an admin, someone authenticated without the role, or nobody known. */
export type AdminVerdict = "admin" | "forbidden" | "unauthenticated";

/**
 * Governance's admin check, the one rule for who is admin: `governance.checkAdmin`, or
 * `createAdminCheck({keys})` of `@conduit-ai/governance` when the server has no `keys` section.
 * It reads `Authorization: Bearer <admin key>` and `ctx.user` (the server's auth).
 */
export type AdminRequestCheck = (ctx: Pick<ServerContext, "header" | "user">) => AdminVerdict;

/** The server's own auth: the user a credential names (its roles), or null. */
export type CredentialUserResolver = (
  credential: string,
) => Promise<Pick<AuthenticatedUser, "roles"> | null> | Pick<AuthenticatedUser, "roles"> | null;

/**
 * The console's question — "is this credential an admin's?" — asked of governance's check, exactly
 * as the admin API asks it: the credential presented as `Authorization: Bearer`, and, when the
 * server has its own auth, the user that credential names as `ctx.user`. The console keeps no
 * rule of its own, so it never admits someone the admin API would refuse, or the other way round.
 *
 * @example
 * import { createAdminCheck } from "@conduit-ai/governance";
 * const verifyAdmin = adminCredentialCheck(createAdminCheck({ keys: adminKeys }));
 * await verifyAdmin(adminKeys[0]); // true
 */
export function adminCredentialCheck(
  check: AdminRequestCheck,
  resolveUser?: CredentialUserResolver,
): (credential: string) => Promise<boolean> {
  return async (credential) => {
    if (typeof credential !== "string" || credential === "") return false;
    if (isAdminKey(check, credential)) return true;
    const header = (name: string) => (name.toLowerCase() === "authorization" ? `Bearer ${credential}` : undefined);
    const found = resolveUser ? await resolveUser(credential) : null;
    if (!found) return false;
    const user: AuthenticatedUser = { id: "console-sign-in", roles: [...found.roles], permissions: [] };
    return check({ header, user }) === "admin";
  };
}

/**
 * Whether `credential` is one of the admin keys (not a user of the server's auth): the check
 * answers "admin" for it with no user at all. The console presents such a key as `Bearer`, and
 * any other credential the way the server's own auth reads it.
 *
 * @example
 * isAdminKey(createAdminCheck({ keys: adminKeys }), adminKeys[0]); // true
 */
export function isAdminKey(check: AdminRequestCheck, credential: string): boolean {
  const header = (name: string) => (name.toLowerCase() === "authorization" ? `Bearer ${credential}` : undefined);
  return check({ header, user: undefined }) === "admin";
}

/** SHA-256 of a credential as hex: what a session record names instead of the credential. */
export function credentialDigest(credential: string): string {
  return createHash("sha256").update(credential, "utf8").digest("hex");
}
