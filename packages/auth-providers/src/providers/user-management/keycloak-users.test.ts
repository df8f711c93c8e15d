import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { KEYCLOAK_ADMIN_CLIENT, type KeycloakFakeState, startKeycloakFake } from "../../testing/vendor-fakes/keycloak-fake.js";
import { createKeycloakProvider } from "../keycloak-provider.js";

const REALM = "conduit";
const ID = "6f1c7c1e-0000-4000-8000-000000000001";
let fake: AdminApiFake;
let state: KeycloakFakeState;

beforeAll(async () => {
  ({ fake, state } = await startKeycloakFake(REALM));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  state.users = new Map([
    [
      ID,
      {
        id: ID,
        username: "ada",
        email: "ada@example.com",
        firstName: "Ada",
        lastName: "Lovelace",
        enabled: true,
        attributes: { plan: ["pro"], teams: ["red", "blue"] },
      },
    ],
  ]);
  const role = (name: string) => ({ id: `role-${name}`, name, composite: false, clientRole: false, containerId: REALM });
  state.roles = new Map(["admin", "editor", `default-roles-${REALM}`].map((name) => [name, role(name)]));
  state.mappings = new Map([[ID, [`default-roles-${REALM}`, "editor"]]]);
});

const provider = (secret: string = KEYCLOAK_ADMIN_CLIENT.secret) =>
  createKeycloakProvider(
    { url: fake.origin, realm: REALM, adminClientId: KEYCLOAK_ADMIN_CLIENT.id, adminClientSecret: secret },
    { sessions: false },
  );

describe("keycloak user operations (Admin REST)", () => {
  it("gets a user with realm roles and attributes, mapped to Conduit's user", async () => {
    expect(await provider().getUser?.(ID)).toEqual({
      id: ID,
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: [`default-roles-${REALM}`, "editor"],
      permissions: [],
      metadata: { plan: "pro", teams: ["red", "blue"] },
    });
    expect(fake.requests("GET", `/admin/realms/${REALM}/users/${ID}`)[0]?.headers.authorization).toBe("Bearer kc-1");
  });

  it("fetches the service account token once (client credentials, form body) and reuses it", async () => {
    const keycloak = provider();
    await keycloak.getUser?.(ID);
    await keycloak.getUserByEmail?.("ada@example.com");
    const tokenRequests = fake.requests("POST", `/realms/${REALM}/protocol/openid-connect/token`);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(tokenRequests[0]?.body).toEqual({
      grant_type: "client_credentials",
      client_id: KEYCLOAK_ADMIN_CLIENT.id,
      client_secret: KEYCLOAK_ADMIN_CLIENT.secret,
    });
  });

  it("finds a user by exact email, and answers undefined when none has it", async () => {
    const keycloak = provider();
    expect((await keycloak.getUserByEmail?.("ada@example.com"))?.id).toBe(ID);
    const [search] = fake.requests("GET", `/admin/realms/${REALM}/users`);
    expect(search?.query.get("email")).toBe("ada@example.com");
    expect(search?.query.get("exact")).toBe("true");
    expect(await keycloak.getUserByEmail?.("ada@example")).toBeUndefined();
  });

  it("merges metadata into the attributes with PUT, keeping the others", async () => {
    const user = await provider().updateUserMetadata?.(ID, { plan: "team", seats: 5, teams: null });
    const [put] = fake.requests("PUT", `/admin/realms/${REALM}/users/${ID}`);
    expect(put?.headers.authorization).toMatch(/^Bearer kc-/);
    expect(put?.body).toEqual(expect.objectContaining({ username: "ada", attributes: { plan: ["team"], seats: ["5"] } }));
    expect(user?.metadata).toEqual({ plan: "team", seats: "5" });
  });

  it("sets the realm role mappings: looks roles up by name, adds and removes", async () => {
    const user = await provider().updateUserRoles?.(ID, [`default-roles-${REALM}`, "admin"]);
    expect(fake.requests("POST", `/admin/realms/${REALM}/users/${ID}/role-mappings/realm`)[0]?.body).toEqual([state.roles.get("admin")]);
    expect(fake.requests("DELETE", `/admin/realms/${REALM}/users/${ID}/role-mappings/realm`)[0]?.body).toEqual([state.roles.get("editor")]);
    expect(user?.roles).toEqual([`default-roles-${REALM}`, "admin"]);
  });

  it("refuses an unknown role as a provider error, not as a missing user", async () => {
    const refused = await provider()
      .updateUserRoles?.(ID, ["nope"])
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, message: expect.stringContaining('"nope"') });
  });

  it("has no updateUserPermissions: Keycloak keeps no per-user permission list", () => {
    expect(provider().updateUserPermissions).toBeUndefined();
  });

  it("raises UserNotFoundError for Keycloak's 404", async () => {
    await expect(provider().getUser?.("missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("missing", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("raises the provider error with the status for 401 and 500", async () => {
    const refused = await provider("wrong")
      .getUser?.(ID)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(String((refused as Error).message)).not.toContain("wrong");
    fake.failWith(500);
    await expect(provider().getUser?.(ID)).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when the Admin API cannot be reached", async () => {
    const down = createKeycloakProvider(
      { url: "http://127.0.0.1:1", realm: REALM, adminClientId: "a", adminClientSecret: "b" },
      { sessions: false },
    );
    await expect(down.getUserByEmail?.("ada@example.com")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE });
  });
});
