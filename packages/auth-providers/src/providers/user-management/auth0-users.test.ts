import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { AUTH0_CLIENT, type Auth0FakeState, startAuth0Fake } from "../../testing/vendor-fakes/auth0-fake.js";
import { createAuth0Provider } from "../auth0-provider.js";

const DOMAIN = "tenant.example.auth0.com";
const API = "https://api.example.com";
let fake: AdminApiFake;
let state: Auth0FakeState;

beforeAll(async () => {
  ({ fake, state } = await startAuth0Fake(`https://${DOMAIN}/api/v2/`));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  state.users.clear();
  state.users.set("auth0|1", {
    user_id: "auth0|1",
    email: "ada@example.com",
    name: "Ada Lovelace",
    nickname: "ada",
    app_metadata: { plan: "pro" },
    user_metadata: { theme: "dark" },
  });
  state.roles = [
    { id: "rol_admin", name: "admin" },
    { id: "rol_editor", name: "editor" },
    { id: "rol_editor_in_chief", name: "editor-in-chief" },
  ];
  state.userRoles = new Map([["auth0|1", ["rol_editor"]]]);
  state.userPermissions = new Map([
    [
      "auth0|1",
      [
        { resource_server_identifier: API, permission_name: "read:reports" },
        { resource_server_identifier: "https://other.example.com", permission_name: "other:thing" },
      ],
    ],
  ]);
});

const provider = () =>
  createAuth0Provider(
    {
      domain: DOMAIN,
      audience: API,
      managementClientId: AUTH0_CLIENT.id,
      managementClientSecret: AUTH0_CLIENT.secret,
      managementApiUrl: fake.origin,
    },
    { sessions: false },
  );

describe("auth0 user operations (Management API v2)", () => {
  it("gets a user by id with RBAC roles and the API's permissions, mapped to Conduit's user", async () => {
    const user = await provider().getUser?.("auth0|1");
    expect(user).toEqual({
      id: "auth0|1",
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["editor"],
      permissions: ["read:reports"],
      metadata: { plan: "pro" },
    });
    const [get] = fake.requests("GET", "/api/v2/users/auth0|1");
    expect(get?.headers.authorization).toBe("Bearer mgmt-1");
  });

  it("fetches the management token once by client credentials and reuses it", async () => {
    const auth0 = provider();
    await auth0.getUser?.("auth0|1");
    await auth0.getUserByEmail?.("ada@example.com");
    const tokenRequests = fake.requests("POST", "/oauth/token");
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.body).toEqual({
      grant_type: "client_credentials",
      client_id: AUTH0_CLIENT.id,
      client_secret: AUTH0_CLIENT.secret,
      audience: `https://${DOMAIN}/api/v2/`,
    });
    expect(new Set(fake.received.filter((request) => request.path.startsWith("/api/v2")).map((r) => r.headers.authorization)).size).toBe(1);
  });

  it("finds a user by email, and answers undefined when none has it", async () => {
    const auth0 = provider();
    expect((await auth0.getUserByEmail?.("ada@example.com"))?.id).toBe("auth0|1");
    expect(fake.requests("GET", "/api/v2/users-by-email")[0]?.query.get("email")).toBe("ada@example.com");
    expect(await auth0.getUserByEmail?.("nobody@example.com")).toBeUndefined();
  });

  it("updates app_metadata with PATCH", async () => {
    const user = await provider().updateUserMetadata?.("auth0|1", { seats: 5 });
    const [patch] = fake.requests("PATCH", "/api/v2/users/auth0|1");
    expect(patch?.body).toEqual({ app_metadata: { seats: 5 } });
    expect(patch?.headers.authorization).toMatch(/^Bearer mgmt-/);
    expect(user?.metadata).toEqual({ plan: "pro", seats: 5 });
  });

  it("sets roles by name: assigns the missing ones by id, removes the others", async () => {
    const user = await provider().updateUserRoles?.("auth0|1", ["admin"]);
    expect(fake.requests("DELETE", "/api/v2/users/auth0|1/roles")[0]?.body).toEqual({ roles: ["rol_editor"] });
    expect(fake.requests("POST", "/api/v2/users/auth0|1/roles")[0]?.body).toEqual({ roles: ["rol_admin"] });
    expect(user?.roles).toEqual(["admin"]);
  });

  it("refuses a role name the tenant does not have (a substring match is not the role)", async () => {
    await expect(provider().updateUserRoles?.("auth0|1", ["editor-in"])).rejects.toMatchObject({
      code: AuthErrorCode.PROVIDER_API_ERROR,
      message: expect.stringContaining("editor-in"),
    });
    expect(fake.requests("POST", "/api/v2/users/auth0|1/roles")).toHaveLength(0);
  });

  it("sets the permissions of the configured API, leaving other APIs' permissions alone", async () => {
    const user = await provider().updateUserPermissions?.("auth0|1", ["write:reports"]);
    expect(fake.requests("DELETE", "/api/v2/users/auth0|1/permissions")[0]?.body).toEqual({
      permissions: [{ resource_server_identifier: API, permission_name: "read:reports" }],
    });
    expect(fake.requests("POST", "/api/v2/users/auth0|1/permissions")[0]?.body).toEqual({
      permissions: [{ resource_server_identifier: API, permission_name: "write:reports" }],
    });
    expect(user?.permissions).toEqual(["write:reports"]);
    expect(state.userPermissions.get("auth0|1")?.map((entry) => entry.permission_name)).toContain("other:thing");
  });

  it("raises UserNotFoundError for Auth0's 404, on reads and on updates", async () => {
    const auth0 = provider();
    await expect(auth0.getUser?.("auth0|missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(auth0.updateUserMetadata?.("auth0|missing", { a: 1 })).rejects.toMatchObject({ statusCode: 404, code: "USER_NOT_FOUND" });
  });

  it("raises the provider error with the status for 401 and 500, never echoing the secret", async () => {
    const wrongSecret = createAuth0Provider(
      { domain: DOMAIN, managementClientId: AUTH0_CLIENT.id, managementClientSecret: "wrong-secret", managementApiUrl: fake.origin },
      { sessions: false },
    );
    const refused = await wrongSecret.getUser?.("auth0|1").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(JSON.stringify(refused) + String((refused as Error).message)).not.toContain("wrong-secret");
    const auth0 = provider();
    await auth0.getUser?.("auth0|1");
    fake.failWith(500);
    await expect(auth0.getUser?.("auth0|1")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when the Management API cannot be reached", async () => {
    const unreachable = createAuth0Provider(
      { domain: DOMAIN, managementClientId: "a", managementClientSecret: "b", managementApiUrl: "http://127.0.0.1:1" },
      { sessions: false },
    );
    await expect(unreachable.getUser?.("auth0|1")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE, statusCode: 503 });
  });

  it("has no user operations without Management API credentials, and refuses half of them", () => {
    expect(createAuth0Provider({ domain: DOMAIN }, { sessions: false }).getUser).toBeUndefined();
    expect(() => createAuth0Provider({ domain: DOMAIN, managementClientId: "a" }, { sessions: false })).toThrow(
      /managementClientSecret: required together with managementClientId/,
    );
  });
});
