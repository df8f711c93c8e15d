import { randomBytes } from "node:crypto";
import type { ServerContext } from "@conduit-ai/server-core";
import { digestsEqual, parseBearer, secretDigestBytes } from "@conduit-ai/server-core/internal";
import {
  type AdminPermission,
  type AdminPrincipal,
  type AdminRole,
  parseAdminRole,
  roleAllows,
  strongestRole,
} from "../roles/admin-roles.js";

/** Who an admin request is: someone with a role on the admin API, someone authenticated without one, or nobody known. */
export type AdminVerdict = "admin" | "forbidden" | "unauthenticated";

/** An admin key of the config: a bare string is an `admin`; an object carries its role. */
export type AdminKeyEntry = string | { key: string; role: AdminRole };

export interface AdminCheckOptions {
  /** Admin secrets from config (`admin.keys`), each a string (role `admin`) or `{key, role}`. */
  keys?: readonly AdminKeyEntry[];
  /**
   * Roles of the server's own auth (`ctx.user.roles`) that grant `admin` (default `["admin"]`).
   * While this is not empty the server's auth is trusted with admin-API roles, so a user's role
   * `viewer`, `auditor` or `team-admin:<team>` counts too; `[]` trusts the server's auth with none.
   */
  roles?: readonly string[];
}

/** The request parts the check reads. */
export type AdminCheckContext = Pick<ServerContext, "header" | "user">;

/**
 * Governance's admin check: callable for the verdict, with `identify` for the caller itself and
 * `delegate` for an in-process stand-in credential (the console's single sign-on sessions).
 */
export interface AdminCheck {
  (ctx: AdminCheckContext): AdminVerdict;
  /** The caller's principal (actor and role), or why there is none. */
  identify(ctx: AdminCheckContext): AdminPrincipal | "forbidden" | "unauthenticated";
  /**
   * A random bearer token that stands for `principal` in this process for at most a minute
   * (until `release`): how the console presents a signed-in user who holds no credential of
   * their own (single sign-on) on its in-process forward to `/admin/*`.
   */
  delegate(principal: AdminPrincipal): { token: string; release(): void };
  /** The role rule itself (`roleAllows`), for the console to reflect and to apply to its own pages. */
  allows(role: string, permission: AdminPermission): boolean;
}

const digest = secretDigestBytes;

/** An admin key's public id: `ak_` and 12 hex characters of its SHA-256 (the key itself never appears). */
export function adminKeyId(key: string): string {
  return `ak_${digest(key).toString("hex").slice(0, 12)}`;
}

const DELEGATION_TTL_MS = 60_000;
const DELEGATION_PREFIX = "cdlg_";

/**
 * Checks an admin credential: `Authorization: Bearer <admin key>` against the configured keys
 * (compared as SHA-256 digests in constant time, every key every time), a user the server's
 * own auth admitted with an admin-API role, or a token `delegate` issued. The operator console
 * is handed the same function.
 *
 * @example
 * const check = createAdminCheck({ keys: [process.env.CONDUIT_ADMIN_KEY ?? "", { key: viewerKey, role: "viewer" }] });
 * if (check(ctx) !== "admin") throw ...;
 * const principal = check.identify(ctx); // { kind: "admin-key", id: "ak_…", hint: "…", role: "viewer" }
 */
export function createAdminCheck(options: AdminCheckOptions): AdminCheck {
  const entries = (options.keys ?? [])
    .map((entry) => (typeof entry === "string" ? { key: entry, role: "admin" as AdminRole } : entry))
    .filter((entry) => entry.key.length > 0)
    .map((entry) => ({
      digest: digest(entry.key),
      principal: { kind: "admin-key", id: adminKeyId(entry.key), hint: entry.key.slice(-4), role: entry.role } as AdminPrincipal,
    }));
  const adminRoles = new Set(options.roles ?? ["admin"]);
  const delegations = new Map<string, { principal: AdminPrincipal; expiresAt: number }>();

  const identify = (ctx: AdminCheckContext): AdminPrincipal | "forbidden" | "unauthenticated" => {
    const presented = parseBearer(ctx.header("authorization"));
    if (presented) {
      const candidate = digest(presented);
      let found: AdminPrincipal | undefined;
      for (const entry of entries) if (digestsEqual(entry.digest, candidate) && found === undefined) found = entry.principal;
      if (found) return found;
      if (presented.startsWith(DELEGATION_PREFIX)) {
        const key = candidate.toString("hex");
        const delegated = delegations.get(key);
        if (delegated && delegated.expiresAt > Date.now()) return delegated.principal;
        delegations.delete(key);
      }
    }
    if (ctx.user) {
      if (adminRoles.size === 0) return "forbidden";
      // A role named in `roles` is `admin`; otherwise only the narrower roles count by their own name.
      const roles = ctx.user.roles.flatMap((name): AdminRole[] => {
        if (adminRoles.has(name)) return ["admin"];
        const role = parseAdminRole(name);
        return role === undefined || role === "admin" ? [] : [role];
      });
      const role = strongestRole(roles);
      if (role === undefined) return "forbidden";
      const name = (ctx.user as { name?: unknown; email?: unknown }).email ?? (ctx.user as { name?: unknown }).name;
      return { kind: "user", id: ctx.user.id, ...(typeof name === "string" ? { hint: name } : {}), role };
    }
    return "unauthenticated";
  };
  const check = ((ctx: AdminCheckContext) => {
    const found = identify(ctx);
    return typeof found === "string" ? found : "admin";
  }) as AdminCheck;
  check.identify = identify;
  check.allows = (role, permission) => {
    const known = parseAdminRole(role);
    return known !== undefined && roleAllows(known, permission);
  };
  check.delegate = (principal) => {
    const token = `${DELEGATION_PREFIX}${randomBytes(32).toString("base64url")}`;
    const key = digest(token).toString("hex");
    const now = Date.now();
    // Expired stand-ins never pile up: each new one sweeps the stale.
    for (const [stale, entry] of delegations) if (entry.expiresAt <= now) delegations.delete(stale);
    delegations.set(key, { principal, expiresAt: now + DELEGATION_TTL_MS });
    return { token, release: () => void delegations.delete(key) };
  };
  return check;
}
