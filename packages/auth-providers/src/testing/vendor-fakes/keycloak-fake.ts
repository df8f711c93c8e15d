import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export interface KeycloakFakeState {
  users: Map<string, Record<string, unknown>>;
  /** Realm roles by name. */
  roles: Map<string, { id: string; name: string; composite: boolean; clientRole: boolean; containerId: string }>;
  /** Realm role names mapped to each user. */
  mappings: Map<string, string[]>;
  tokensIssued: number;
}

export const KEYCLOAK_ADMIN_CLIENT = { id: "conduit-admin", secret: "admin-secret" } as const;

/**
 * Keycloak's Admin REST API as its wire format has it, for one realm: the realm's token
 * endpoint (client credentials, form body) and `/admin/realms/<realm>/users…`, `/roles/<name>`.
 *
 * @example
 * const { fake, state } = await startKeycloakFake("conduit");
 */
export async function startKeycloakFake(realm: string): Promise<{ fake: AdminApiFake; state: KeycloakFakeState }> {
  const state: KeycloakFakeState = { users: new Map(), roles: new Map(), mappings: new Map(), tokensIssued: 0 };
  const tokens = new Set<string>();
  const admin = `/admin/realms/${realm}`;
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.method === "POST" && request.path === `/realms/${realm}/protocol/openid-connect/token`) {
      const form = request.body as Record<string, string>;
      if (form.client_id !== KEYCLOAK_ADMIN_CLIENT.id || form.client_secret !== KEYCLOAK_ADMIN_CLIENT.secret)
        return { status: 401, json: { error: "unauthorized_client", error_description: "Invalid client or Invalid client credentials" } };
      const token = `kc-${++state.tokensIssued}`;
      tokens.add(token);
      return { json: { access_token: token, expires_in: 300, token_type: "Bearer", scope: "profile email" } };
    }
    if (!tokens.has(String(request.headers.authorization).replace(/^Bearer /, "")))
      return { status: 401, json: { error: "HTTP 401 Unauthorized" } };
    if (request.method === "GET" && request.path === `${admin}/users`) {
      const email = request.query.get("email");
      const exact = request.query.get("exact") === "true";
      return {
        json: [...state.users.values()].filter((user) => (exact ? user.email === email : String(user.email).includes(String(email)))),
      };
    }
    const role = new RegExp(`^${admin}/roles/([^/]+)$`).exec(request.path);
    if (role) {
      const found = state.roles.get(role[1] as string);
      return found ? { json: found } : { status: 404, json: { error: "Could not find role" } };
    }
    const match = new RegExp(`^${admin}/users/([^/]+)(/role-mappings/realm)?$`).exec(request.path);
    const user = match ? state.users.get(match[1] as string) : undefined;
    if (!match || !user) return { status: 404, json: { error: "User not found" } };
    const id = match[1] as string;
    if (match[2]) {
      const current = state.mappings.get(id) ?? [];
      const given = ((request.body ?? []) as Array<{ name: string }>).map((entry) => entry.name);
      if (request.method === "POST") state.mappings.set(id, [...current, ...given]);
      if (request.method === "DELETE")
        state.mappings.set(
          id,
          current.filter((name) => !given.includes(name)),
        );
      if (request.method !== "GET") return { status: 204 };
      return { json: current.map((name) => state.roles.get(name)) };
    }
    if (request.method === "PUT") {
      state.users.set(id, { ...user, ...(request.body as object), id });
      return { status: 204 };
    }
    return { json: user };
  };
  return { fake: await startAdminApiFake(route), state };
}
