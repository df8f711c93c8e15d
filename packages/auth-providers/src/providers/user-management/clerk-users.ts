import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf, stringList } from "./admin-http.js";
import type { UserOperations } from "./user-operations.js";

/** How Conduit reaches Clerk's Backend API. */
export interface ClerkAdminOptions {
  /** Default `https://api.clerk.com`. */
  apiUrl: string;
  /** The instance's secret key (`sk_live_…`), sent as bearer. */
  secretKey: string;
  timeoutMs: number;
}

/**
 * Clerk's User object → Conduit's user. Roles and permissions live in `public_metadata.roles` /
 * `.permissions` (the claims the `clerk` type reads from session tokens), `metadata` is the
 * rest of `public_metadata`; the email is the primary address.
 */
export function clerkUserToConduit(record: unknown): AuthenticatedUser {
  const user = recordOf(record);
  const { roles, permissions, ...rest } = recordOf(user.public_metadata);
  const addresses = Array.isArray(user.email_addresses) ? user.email_addresses.map(recordOf) : [];
  const primary = addresses.find((address) => address.id === user.primary_email_address_id) ?? addresses[0];
  const fullName = [user.first_name, user.last_name].filter((part) => typeof part === "string" && part !== "").join(" ");
  return {
    id: String(user.id),
    ...optionalString("email", primary?.email_address),
    ...optionalString("name", fullName || user.username),
    roles: stringList(roles),
    permissions: stringList(permissions),
    metadata: rest,
  };
}

/**
 * Clerk's Backend API behind the user operations: `GET /v1/users/{id}`, `GET /v1/users?email_address=`,
 * and `PATCH /v1/users/{id}/metadata` (Clerk deep-merges it) for metadata, roles and permissions,
 * all kept in `public_metadata` where the session token claims find them.
 *
 * @example
 * const operations = createClerkUserClient({ apiUrl: "https://api.clerk.com", secretKey: "sk_live_…", timeoutMs: 10_000 });
 */
export function createClerkUserClient(options: ClerkAdminOptions): UserOperations {
  const base = `${options.apiUrl.replace(/\/+$/, "")}/v1`;
  const call = (method: "GET" | "PATCH", path: string, json?: unknown) =>
    adminJson("clerk", `${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.secretKey}` },
      json,
      timeoutMs: options.timeoutMs,
    });
  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const patchPublic = async (id: string, publicMetadata: Record<string, unknown>) =>
    clerkUserToConduit(await call("PATCH", `${userPath(id)}/metadata`, { public_metadata: publicMetadata }));
  return {
    getUser: async (id) => clerkUserToConduit(await call("GET", userPath(id))),
    async getUserByEmail(email) {
      const found = await call("GET", `/users?email_address=${encodeURIComponent(email)}&limit=1`);
      return Array.isArray(found) && found.length > 0 ? clerkUserToConduit(found[0]) : undefined;
    },
    // Clerk deep-merges the metadata patch; a key set to null is removed. Arrays are replaced whole.
    updateUserMetadata: (id, metadata) => patchPublic(id, metadata),
    updateUserRoles: (id, roles) => patchPublic(id, { roles }),
    updateUserPermissions: (id, permissions) => patchPublic(id, { permissions }),
  };
}
