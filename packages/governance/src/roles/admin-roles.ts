import { AuthorizationError } from "@conduit-ai/server-core";

/**
 * A role on the admin API: `admin` (everything), `team-admin:<team>` (that team's keys, usage and
 * audit entries), `viewer` (read-only everywhere, never a secret), `auditor` (usage and the audit log).
 */
export type AdminRole = "admin" | "viewer" | "auditor" | `team-admin:${string}`;

/** Who is calling the admin API: an admin key of the config, or a user (the server's auth, or a console sign-in). */
export interface AdminPrincipal {
  kind: "admin-key" | "user";
  /** An admin key's id (`ak_` and 12 hex of its SHA-256: never the key), or the user's id. */
  id: string;
  /** An admin key's last 4 characters, or the user's name or email when known. */
  hint?: string;
  role: AdminRole;
}

/** What a role may be asked to do; each admin route needs one. */
export type AdminPermission =
  | "keys.read"
  | "keys.write"
  | "teams.read"
  | "teams.write"
  | "usage.read"
  | "audit.read"
  /** The console's server-wide pages: Overview, Live requests, Health, Accounts. */
  | "console.read"
  /** Taking a proxy account out of rotation and back (the console's Accounts page). */
  | "accounts.write";

/** Every permission, for a client that lists what a role may do. */
export const ADMIN_PERMISSIONS: readonly AdminPermission[] = [
  "keys.read",
  "keys.write",
  "teams.read",
  "teams.write",
  "usage.read",
  "audit.read",
  "console.read",
  "accounts.write",
];

const TEAM_ADMIN = /^team-admin:([A-Za-z0-9_.-]{1,64})$/;

/**
 * The role a string names, or undefined: `admin`, `viewer`, `auditor`, `team-admin:<team id>`.
 *
 * @example
 * parseAdminRole("team-admin:search"); // "team-admin:search"
 * parseAdminRole("owner"); // undefined
 */
export function parseAdminRole(value: unknown): AdminRole | undefined {
  if (value === "admin" || value === "viewer" || value === "auditor") return value;
  if (typeof value === "string" && TEAM_ADMIN.test(value)) return value as AdminRole;
  return undefined;
}

/** The team a `team-admin:<team>` role manages, else undefined. */
export function teamOfRole(role: AdminRole): string | undefined {
  return TEAM_ADMIN.exec(role)?.[1];
}

const GRANTS: Record<"admin" | "viewer" | "auditor" | "team-admin", ReadonlySet<AdminPermission>> = {
  admin: new Set(ADMIN_PERMISSIONS),
  viewer: new Set(["keys.read", "teams.read", "usage.read", "audit.read", "console.read"]),
  auditor: new Set(["usage.read", "audit.read"]),
  // Scoped to the team by the routes themselves (another team's ids answer 404).
  "team-admin": new Set(["keys.read", "keys.write", "teams.read", "usage.read", "audit.read"]),
};

/**
 * Whether `role` grants `permission` (for a team-admin: within its own team).
 *
 * @example
 * roleAllows("viewer", "keys.write"); // false
 */
export function roleAllows(role: AdminRole, permission: AdminPermission): boolean {
  const family = teamOfRole(role) === undefined ? (role as "admin" | "viewer" | "auditor") : "team-admin";
  return GRANTS[family]?.has(permission) === true;
}

/**
 * Throws 403 `ADMIN_ROLE_FORBIDDEN` unless `role` grants `permission`.
 *
 * @example
 * requirePermission(principal.role, "keys.write");
 */
export function requirePermission(role: AdminRole, permission: AdminPermission): void {
  if (!roleAllows(role, permission))
    throw new AuthorizationError(`The role "${role}" may not do this (${permission})`, {
      code: "ADMIN_ROLE_FORBIDDEN",
      details: { role, needs: permission },
    });
}

/** Most powerful first: the role a user holding several admin-API roles acts with. */
export function strongestRole(roles: Iterable<AdminRole>): AdminRole | undefined {
  const list = [...roles];
  return (
    list.find((role) => role === "admin") ??
    list.find((role) => teamOfRole(role) !== undefined) ??
    list.find((role) => role === "viewer") ??
    list.find((role) => role === "auditor")
  );
}
