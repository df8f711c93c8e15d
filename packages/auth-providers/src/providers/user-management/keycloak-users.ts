import { ProviderAPIError } from "../../errors/auth-errors.js";
import type { AuthenticatedUser } from "../../types.js";
import { adminJson, optionalString, recordOf, stringList } from "./admin-http.js";
import { cachedToken } from "./admin-token-cache.js";
import { type UserOperations, difference } from "./user-operations.js";

/** How Conduit reaches a Keycloak realm's Admin REST API (a confidential client with a service account). */
export interface KeycloakAdminOptions {
  /** Server URL (`https://sso.example.com`, or with `/auth` on old versions). */
  url: string;
  realm: string;
  /** Client whose service account holds the realm-management roles (`view-users`, `manage-users`). */
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

interface RoleRepresentation {
  id: string;
  name: string;
}

/** Keycloak attributes are lists of strings: one value reads back as a string, several as a list. */
function attributesToMetadata(attributes: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(recordOf(attributes)).map(([key, values]) => {
      const list = stringList(values);
      return [key, list.length === 1 ? list[0] : list];
    }),
  );
}

/** Metadata values as Keycloak attribute lists: strings as is, lists of strings as lists, anything else as JSON; null removes the key. */
function metadataToAttributes(metadata: Record<string, unknown>): Record<string, string[] | null> {
  return Object.fromEntries(
    Object.entries(metadata).map(([key, value]) => {
      if (value === null) return [key, null];
      if (typeof value === "string") return [key, [value]];
      if (Array.isArray(value) && value.every((item) => typeof item === "string")) return [key, value];
      return [key, [JSON.stringify(value)]];
    }),
  );
}

/** Keycloak's UserRepresentation + realm role mappings → Conduit's user; `metadata` holds the attributes. */
export function keycloakUserToConduit(record: unknown, realmRoles: RoleRepresentation[]): AuthenticatedUser {
  const user = recordOf(record);
  const fullName = [user.firstName, user.lastName].filter((part) => typeof part === "string" && part !== "").join(" ");
  return {
    id: String(user.id),
    ...optionalString("email", user.email),
    ...optionalString("name", fullName || user.username),
    roles: realmRoles.map((role) => role.name),
    permissions: [],
    metadata: attributesToMetadata(user.attributes),
  };
}

/**
 * Keycloak's Admin REST API behind the user operations: a client-credentials token of the
 * realm's token endpoint (cached), users by id and by exact email, attributes as metadata, and
 * realm role mappings as roles. Keycloak has no per-user permission list (permissions are
 * Authorization Services policies), so `updateUserPermissions` is left out.
 *
 * @example
 * const operations = createKeycloakUserClient({ url: "https://sso.example.com", realm: "conduit", clientId: "conduit-admin", clientSecret, timeoutMs: 10_000 });
 */
export function createKeycloakUserClient(options: KeycloakAdminOptions): UserOperations {
  const base = options.url.replace(/\/+$/, "");
  const realm = encodeURIComponent(options.realm);
  const token = cachedToken(async () => {
    const answer = recordOf(
      await adminJson("keycloak", `${base}/realms/${realm}/protocol/openid-connect/token`, {
        method: "POST",
        form: { grant_type: "client_credentials", client_id: options.clientId, client_secret: options.clientSecret },
        timeoutMs: options.timeoutMs,
      }),
    );
    if (typeof answer.access_token !== "string")
      throw new ProviderAPIError("keycloak", "Keycloak token endpoint answered without access_token");
    return { accessToken: answer.access_token, ...(typeof answer.expires_in === "number" ? { expiresInSec: answer.expires_in } : {}) };
  });
  const call = async (method: "GET" | "POST" | "PUT" | "DELETE", path: string, json?: unknown, notFoundError?: () => Error) =>
    adminJson("keycloak", `${base}/admin/realms/${realm}${path}`, {
      method,
      headers: { authorization: `Bearer ${await token()}` },
      json,
      timeoutMs: options.timeoutMs,
      ...(notFoundError ? { notFoundError } : {}),
    });
  const userPath = (id: string) => `/users/${encodeURIComponent(id)}`;
  const realmRolesOf = async (id: string) =>
    ((await call("GET", `${userPath(id)}/role-mappings/realm`)) as RoleRepresentation[] | undefined) ?? [];
  const complete = async (record: unknown) => keycloakUserToConduit(record, await realmRolesOf(String(recordOf(record).id)));
  const getUser = async (id: string) => complete(await call("GET", userPath(id)));

  return {
    getUser,
    async getUserByEmail(email) {
      const found = await call("GET", `/users?email=${encodeURIComponent(email)}&exact=true`);
      return Array.isArray(found) && found.length > 0 ? complete(found[0]) : undefined;
    },
    async updateUserMetadata(id, metadata) {
      // PUT replaces the attribute map as a whole: merge into the current one so other attributes survive.
      const current = recordOf(await call("GET", userPath(id)));
      const merged: Record<string, unknown> = { ...recordOf(current.attributes), ...metadataToAttributes(metadata) };
      for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
      await call("PUT", userPath(id), { ...current, attributes: merged });
      return getUser(id);
    },
    async updateUserRoles(id, roles) {
      const current = await realmRolesOf(id);
      const { add, remove } = difference(
        roles,
        current.map((role) => role.name),
      );
      const toAdd = await Promise.all(
        add.map(
          async (name) =>
            (await call(
              "GET",
              `/roles/${encodeURIComponent(name)}`,
              undefined,
              () => new ProviderAPIError("keycloak", `Keycloak realm has no role named "${name}"`, { details: { status: 404 } }),
            )) as RoleRepresentation,
        ),
      );
      const toRemove = current.filter((role) => remove.includes(role.name));
      if (toRemove.length > 0) await call("DELETE", `${userPath(id)}/role-mappings/realm`, toRemove);
      if (toAdd.length > 0) await call("POST", `${userPath(id)}/role-mappings/realm`, toAdd);
      return getUser(id);
    },
  };
}
