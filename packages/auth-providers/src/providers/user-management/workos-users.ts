import { ProviderAPIError } from "../../errors/auth-errors.js";
import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf } from "./admin-http.js";
import type { UserOperations } from "./user-operations.js";

/** How Conduit reaches WorkOS User Management. */
export interface WorkOSAdminOptions {
  /** Default `https://api.workos.com`. */
  apiUrl: string;
  /** Secret API key (`sk_…`), sent as bearer. */
  apiKey: string;
  /** Organization whose membership carries the user's roles; without it `updateUserRoles` is left out and roles come from every active membership. */
  organizationId?: string | undefined;
  timeoutMs: number;
}

/** A membership's role slugs: `roles` (Multiple Roles) or the single `role`. */
function roleSlugsOf(membership: Record<string, unknown>): string[] {
  const many = Array.isArray(membership.roles) ? membership.roles.map((role) => recordOf(role).slug) : [];
  const slugs = many.length > 0 ? many : [recordOf(membership.role).slug];
  return slugs.filter((slug): slug is string => typeof slug === "string");
}

/** WorkOS's user + organization memberships → Conduit's user; `metadata` is the user's metadata (string values). */
export function workosUserToConduit(record: unknown, memberships: Array<Record<string, unknown>>): AuthenticatedUser {
  const user = recordOf(record);
  const fullName = [user.first_name, user.last_name].filter((part) => typeof part === "string" && part !== "").join(" ");
  return {
    id: String(user.id),
    ...optionalString("email", user.email),
    ...optionalString("name", fullName),
    roles: [...new Set(memberships.flatMap(roleSlugsOf))],
    // WorkOS grants permissions through roles (they appear in AuthKit tokens), not per user.
    permissions: [],
    metadata: recordOf(user.metadata),
  };
}

/** WorkOS metadata values are strings: anything else is stored as JSON; null removes the key. */
const asMetadataValue = (value: unknown): string | null =>
  value === null ? null : typeof value === "string" ? value : JSON.stringify(value);

/**
 * WorkOS User Management behind the user operations: users by id and by email, the user's
 * `metadata` (read, merged, written with `PUT`), and roles through the organization membership
 * of `organizationId`. WorkOS has no per-user permissions (they come from roles), so
 * `updateUserPermissions` is left out.
 *
 * @example
 * const operations = createWorkOSUserClient({ apiUrl: "https://api.workos.com", apiKey: "sk_…", organizationId: "org_01H…", timeoutMs: 10_000 });
 */
export function createWorkOSUserClient(options: WorkOSAdminOptions): UserOperations {
  const base = `${options.apiUrl.replace(/\/+$/, "")}/user_management`;
  const call = (method: "GET" | "PUT", path: string, json?: unknown) =>
    adminJson("workos", `${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}` },
      json,
      timeoutMs: options.timeoutMs,
    });
  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const membershipsOf = async (id: string) => {
    const query = new URLSearchParams({ user_id: id, statuses: "active", limit: "100" });
    if (options.organizationId) query.set("organization_id", options.organizationId);
    const answer = recordOf(await call("GET", `/organization_memberships?${query}`));
    return (Array.isArray(answer.data) ? answer.data : []).map(recordOf);
  };
  const complete = async (record: unknown) => workosUserToConduit(record, await membershipsOf(String(recordOf(record).id)));
  const getUser = async (id: string) => complete(await call("GET", userPath(id)));

  const operations: UserOperations = {
    getUser,
    async getUserByEmail(email) {
      const answer = recordOf(await call("GET", `/users?email=${encodeURIComponent(email)}&limit=1`));
      const found = Array.isArray(answer.data) ? answer.data[0] : undefined;
      return found ? complete(found) : undefined;
    },
    async updateUserMetadata(id, metadata) {
      const current = recordOf(recordOf(await call("GET", userPath(id))).metadata);
      const merged: Record<string, unknown> = { ...current };
      for (const [key, value] of Object.entries(metadata)) {
        const stored = asMetadataValue(value);
        if (stored === null) delete merged[key];
        else merged[key] = stored;
      }
      return complete(await call("PUT", userPath(id), { metadata: merged }));
    },
  };
  const organizationId = options.organizationId;
  if (organizationId) {
    operations.updateUserRoles = async (id, roles) => {
      // A user missing altogether is a 404 here, before the membership question.
      await call("GET", userPath(id));
      const [membership] = await membershipsOf(id);
      if (!membership)
        throw new ProviderAPIError("workos", "The user is no member of the configured WorkOS organization", { details: { status: 404 } });
      // `role_slug` and `role_slugs` are exclusive; one role goes as `role_slug` so it works without Multiple Roles.
      const body = roles.length === 1 ? { role_slug: roles[0] } : { role_slugs: roles };
      await call("PUT", `/organization_memberships/${encodeURIComponent(String(membership.id))}`, body);
      return getUser(id);
    };
  }
  return operations;
}
