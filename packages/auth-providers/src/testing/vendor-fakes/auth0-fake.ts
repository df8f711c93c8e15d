import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

/** The fake tenant's state, readable and changeable by a test. */
export interface Auth0FakeState {
  users: Map<string, Record<string, unknown>>;
  roles: Array<{ id: string; name: string }>;
  userRoles: Map<string, string[]>;
  userPermissions: Map<string, Array<{ resource_server_identifier: string; permission_name: string }>>;
  tokensIssued: number;
}

export const AUTH0_CLIENT = { id: "m2m-client", secret: "m2m-secret" } as const;

const notFound = { statusCode: 404, error: "Not Found", message: "The user does not exist.", errorCode: "inexistent_user" };

/**
 * Auth0's Management API v2 as its wire format has it: `POST /oauth/token` (client credentials,
 * JSON body) and the `/api/v2/users…` and `/api/v2/roles` endpoints, each checking the bearer.
 *
 * @example
 * const { fake, state } = await startAuth0Fake("https://tenant.example.auth0.com/api/v2/");
 */
export async function startAuth0Fake(audience: string): Promise<{ fake: AdminApiFake; state: Auth0FakeState }> {
  const state: Auth0FakeState = { users: new Map(), roles: [], userRoles: new Map(), userPermissions: new Map(), tokensIssued: 0 };
  const tokens = new Set<string>();
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.method === "POST" && request.path === "/oauth/token") {
      const body = request.body as Record<string, string>;
      if (body.client_id !== AUTH0_CLIENT.id || body.client_secret !== AUTH0_CLIENT.secret)
        return { status: 401, json: { error: "access_denied", error_description: "Unauthorized" } };
      if (body.grant_type !== "client_credentials" || body.audience !== audience)
        return { status: 403, json: { error: "access_denied", error_description: "Service not enabled within domain" } };
      const token = `mgmt-${++state.tokensIssued}`;
      tokens.add(token);
      return { json: { access_token: token, token_type: "Bearer", expires_in: 86_400, scope: "read:users update:users" } };
    }
    if (!tokens.has(String(request.headers.authorization).replace(/^Bearer /, "")))
      return { status: 401, json: { statusCode: 401, error: "Unauthorized", message: "Invalid token" } };
    if (request.path === "/api/v2/users-by-email") {
      const email = request.query.get("email");
      return { json: [...state.users.values()].filter((user) => user.email === email) };
    }
    if (request.method === "GET" && request.path === "/api/v2/roles") {
      const filter = (request.query.get("name_filter") ?? "").toLowerCase();
      return { json: state.roles.filter((role) => role.name.toLowerCase().includes(filter)) };
    }
    const match = /^\/api\/v2\/users\/([^/]+)(\/roles|\/permissions)?$/.exec(request.path);
    const user = match ? state.users.get(match[1] as string) : undefined;
    if (!match || !user) return { status: 404, json: notFound };
    const id = match[1] as string;
    const body = request.body as Record<string, unknown[]>;
    if (match[2] === "/roles") {
      const current = state.userRoles.get(id) ?? [];
      if (request.method === "POST") state.userRoles.set(id, [...current, ...(body.roles as string[])]);
      if (request.method === "DELETE")
        state.userRoles.set(
          id,
          current.filter((roleId) => !(body.roles as string[]).includes(roleId)),
        );
      if (request.method !== "GET") return { status: 204 };
      return { json: state.roles.filter((role) => current.includes(role.id)).map((role) => ({ ...role, description: "" })) };
    }
    if (match[2] === "/permissions") {
      const current = state.userPermissions.get(id) ?? [];
      const given = (body?.permissions ?? []) as typeof current;
      const same = (a: (typeof current)[number], b: (typeof current)[number]) =>
        a.permission_name === b.permission_name && a.resource_server_identifier === b.resource_server_identifier;
      if (request.method === "POST") state.userPermissions.set(id, [...current, ...given]);
      if (request.method === "DELETE")
        state.userPermissions.set(
          id,
          current.filter((entry) => !given.some((other) => same(entry, other))),
        );
      if (request.method !== "GET") return { status: 201 };
      return { json: current.map((entry) => ({ ...entry, resource_server_name: "API", sources: [] })) };
    }
    if (request.method === "PATCH") {
      const patch = request.body as Record<string, Record<string, unknown>>;
      const merged = { ...(user.app_metadata as object), ...patch.app_metadata };
      for (const [key, value] of Object.entries(merged)) if (value === null) delete (merged as Record<string, unknown>)[key];
      user.app_metadata = merged;
    }
    return { json: user };
  };
  return { fake: await startAdminApiFake(route, notFound), state };
}
