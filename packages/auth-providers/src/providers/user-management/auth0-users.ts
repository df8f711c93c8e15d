import { ProviderAPIError } from "../../errors/auth-errors.js";
import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf } from "./admin-http.js";
import { cachedToken } from "./admin-token-cache.js";
import { type UserOperations, difference } from "./user-operations.js";

/** How Conduit reaches an Auth0 tenant's Management API v2 (a machine-to-machine application). */
export interface Auth0AdminOptions {
  /** `https://<domain>` (or a test server): hosts `/oauth/token` and `/api/v2/`. */
  apiUrl: string;
  /** Audience of the management token: `https://<domain>/api/v2/`. */
  audience: string;
  clientId: string;
  clientSecret: string;
  /** API identifier whose permissions `updateUserPermissions` assigns and `getUser` lists (the `audience` of your tokens); none → all APIs are listed and the operation is left out. */
  permissionsApi?: string | undefined;
  timeoutMs: number;
}

interface Auth0Role {
  id: string;
  name: string;
}

/** Auth0's user record (+ RBAC roles and permissions) → Conduit's user; `metadata` is the server-controlled `app_metadata`. */
export function auth0UserToConduit(record: unknown, roles: Auth0Role[], permissions: unknown[], api?: string): AuthenticatedUser {
  const user = recordOf(record);
  const granted = permissions
    .map(recordOf)
    .filter((permission) => api === undefined || permission.resource_server_identifier === api)
    .map((permission) => permission.permission_name)
    .filter((name): name is string => typeof name === "string");
  return {
    id: String(user.user_id),
    ...optionalString("email", user.email),
    ...optionalString("name", user.name ?? user.nickname),
    roles: roles.map((role) => role.name),
    permissions: granted,
    metadata: recordOf(user.app_metadata),
  };
}

/**
 * The Auth0 Management API v2 behind the user operations: a client-credentials token (cached
 * until shortly before `expires_in`), users by id and by email, `app_metadata` updates, RBAC
 * roles (by name) and permissions (of one API).
 *
 * @example
 * const operations = createAuth0UserClient({ apiUrl: "https://tenant.eu.auth0.com", audience: "https://tenant.eu.auth0.com/api/v2/",
 *   clientId, clientSecret, permissionsApi: "https://api.example.com", timeoutMs: 10_000 });
 */
export function createAuth0UserClient(options: Auth0AdminOptions): UserOperations {
  const base = options.apiUrl.replace(/\/+$/, "");
  const token = cachedToken(async () => {
    const answer = recordOf(
      await adminJson("auth0", `${base}/oauth/token`, {
        method: "POST",
        json: {
          grant_type: "client_credentials",
          client_id: options.clientId,
          client_secret: options.clientSecret,
          audience: options.audience,
        },
        timeoutMs: options.timeoutMs,
      }),
    );
    if (typeof answer.access_token !== "string") throw new ProviderAPIError("auth0", "Auth0 token endpoint answered without access_token");
    return { accessToken: answer.access_token, ...(typeof answer.expires_in === "number" ? { expiresInSec: answer.expires_in } : {}) };
  });
  const call = async (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, json?: unknown) =>
    adminJson("auth0", `${base}/api/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${await token()}` },
      json,
      timeoutMs: options.timeoutMs,
    });
  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const rolesOf = async (id: string) => ((await call("GET", `${userPath(id)}/roles?per_page=100`)) as Auth0Role[] | undefined) ?? [];
  const permissionsOf = async (id: string) =>
    ((await call("GET", `${userPath(id)}/permissions?per_page=100`)) as unknown[] | undefined) ?? [];
  const complete = async (record: unknown): Promise<AuthenticatedUser> => {
    const id = String(recordOf(record).user_id);
    const [roles, permissions] = await Promise.all([rolesOf(id), permissionsOf(id)]);
    return auth0UserToConduit(record, roles, permissions, options.permissionsApi);
  };
  const getUser = async (id: string) => complete(await call("GET", userPath(id)));

  const operations: UserOperations = {
    getUser,
    async getUserByEmail(email) {
      const found = await call("GET", `/users-by-email?email=${encodeURIComponent(email)}`);
      return Array.isArray(found) && found.length > 0 ? complete(found[0]) : undefined;
    },
    async updateUserMetadata(id, metadata) {
      // Auth0 merges app_metadata's top-level keys; a key set to null is removed.
      return complete(await call("PATCH", userPath(id), { app_metadata: metadata }));
    },
    async updateUserRoles(id, roles) {
      const current = await rolesOf(id);
      const { add, remove } = difference(
        roles,
        current.map((role) => role.name),
      );
      const addIds = await Promise.all(
        add.map(async (name) => {
          const matches = ((await call("GET", `/roles?name_filter=${encodeURIComponent(name)}`)) as Auth0Role[] | undefined) ?? [];
          const role = matches.find((candidate) => candidate.name === name);
          if (!role) throw new ProviderAPIError("auth0", `Auth0 has no role named "${name}"`, { details: { status: 404 } });
          return role.id;
        }),
      );
      const removeIds = current.filter((role) => remove.includes(role.name)).map((role) => role.id);
      if (removeIds.length > 0) await call("DELETE", `${userPath(id)}/roles`, { roles: removeIds });
      if (addIds.length > 0) await call("POST", `${userPath(id)}/roles`, { roles: addIds });
      return getUser(id);
    },
  };
  const api = options.permissionsApi;
  if (api) {
    operations.updateUserPermissions = async (id, permissions) => {
      const current = (await permissionsOf(id))
        .map(recordOf)
        .filter((permission) => permission.resource_server_identifier === api)
        .map((permission) => String(permission.permission_name));
      const { add, remove } = difference(permissions, current);
      const body = (names: string[]) => ({
        permissions: names.map((name) => ({ resource_server_identifier: api, permission_name: name })),
      });
      if (remove.length > 0) await call("DELETE", `${userPath(id)}/permissions`, body(remove));
      if (add.length > 0) await call("POST", `${userPath(id)}/permissions`, body(add));
      return getUser(id);
    };
  }
  return operations;
}
