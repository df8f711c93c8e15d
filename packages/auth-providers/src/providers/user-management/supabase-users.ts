import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf, stringList } from "./admin-http.js";
import type { UserOperations } from "./user-operations.js";

/** How Conduit reaches a Supabase project's Auth admin API. */
export interface SupabaseAdminOptions {
  /** Project URL (`https://<ref>.supabase.co`): the admin API is under `/auth/v1/admin`. */
  url: string;
  /** The `service_role` key (secret: bypasses row-level security; server-side only). */
  serviceRoleKey: string;
  timeoutMs: number;
}

/** Pages of the admin user list searched for an email (50 users each). */
const EMAIL_SEARCH_PAGES = 20;
const PAGE_SIZE = 50;

/**
 * Supabase Auth's user → Conduit's user. Roles and permissions live in `app_metadata.roles` /
 * `.permissions` (the claims the `supabase` type reads from access tokens), `metadata` is the rest
 * of `app_metadata` (server-controlled; `user_metadata` the user can edit is not used).
 */
export function supabaseUserToConduit(record: unknown): AuthenticatedUser {
  const user = recordOf(record);
  const { roles, permissions, ...rest } = recordOf(user.app_metadata);
  const profile = recordOf(user.user_metadata);
  return {
    id: String(user.id),
    ...optionalString("email", user.email),
    ...optionalString("name", profile.full_name ?? profile.name),
    roles: stringList(roles),
    permissions: stringList(permissions),
    metadata: rest,
  };
}

/**
 * The Supabase Auth admin API behind the user operations: `GET/PUT /auth/v1/admin/users/{id}`
 * (the service role key as `apikey` and bearer) and, for email lookup, the admin user list
 * filtered by the email and matched exactly. Updates go to `app_metadata`, which Supabase
 * merges key by key (null removes a key).
 *
 * @example
 * const operations = createSupabaseUserClient({ url: "https://abcd.supabase.co", serviceRoleKey, timeoutMs: 10_000 });
 */
export function createSupabaseUserClient(options: SupabaseAdminOptions): UserOperations {
  const base = `${options.url.replace(/\/+$/, "")}/auth/v1/admin`;
  const call = (method: "GET" | "PUT", path: string, json?: unknown) =>
    adminJson("supabase", `${base}${path}`, {
      method,
      headers: { apikey: options.serviceRoleKey, authorization: `Bearer ${options.serviceRoleKey}` },
      json,
      timeoutMs: options.timeoutMs,
    });
  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const updateAppMetadata = async (id: string, appMetadata: Record<string, unknown>) =>
    supabaseUserToConduit(await call("PUT", userPath(id), { app_metadata: appMetadata }));
  return {
    getUser: async (id) => supabaseUserToConduit(await call("GET", userPath(id))),
    async getUserByEmail(email) {
      const wanted = email.toLowerCase();
      for (let page = 1; page <= EMAIL_SEARCH_PAGES; page++) {
        const answer = recordOf(await call("GET", `/users?page=${page}&per_page=${PAGE_SIZE}&filter=${encodeURIComponent(email)}`));
        const users = Array.isArray(answer.users) ? answer.users : [];
        const found = users.find((user) => String(recordOf(user).email).toLowerCase() === wanted);
        if (found) return supabaseUserToConduit(found);
        if (users.length < PAGE_SIZE) return undefined;
      }
      return undefined;
    },
    updateUserMetadata: (id, metadata) => updateAppMetadata(id, metadata),
    updateUserRoles: (id, roles) => updateAppMetadata(id, { roles }),
    updateUserPermissions: (id, permissions) => updateAppMetadata(id, { permissions }),
  };
}
