import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { WORKOS_API_KEY, type WorkOSFakeState, startWorkOSFake } from "../../testing/vendor-fakes/workos-fake.js";
import { createWorkOSProvider } from "../workos-provider.js";

const ID = "user_01HXYZ";
const ORG = "org_01ACME";
let fake: AdminApiFake;
let state: WorkOSFakeState;

beforeAll(async () => {
  ({ fake, state } = await startWorkOSFake());
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  state.users = new Map([
    [
      ID,
      {
        object: "user",
        id: ID,
        email: "ada@example.com",
        first_name: "Ada",
        last_name: "Lovelace",
        email_verified: true,
        metadata: { plan: "pro", team: "red" },
      },
    ],
  ]);
  state.memberships = [
    { object: "organization_membership", id: "om_1", user_id: ID, organization_id: ORG, role: { slug: "member" }, status: "active" },
    { object: "organization_membership", id: "om_2", user_id: ID, organization_id: "org_other", role: { slug: "admin" }, status: "active" },
  ];
});

const provider = (apiKey = WORKOS_API_KEY, organizationId: string | undefined = ORG) =>
  createWorkOSProvider(
    { clientId: "client_1", apiUrl: fake.origin, apiKey, ...(organizationId ? { organizationId } : {}) },
    { sessions: false },
  );

describe("workos user operations (User Management)", () => {
  it("gets a user with the role of the configured organization's membership", async () => {
    expect(await provider().getUser?.(ID)).toEqual({
      id: ID,
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["member"],
      permissions: [],
      metadata: { plan: "pro", team: "red" },
    });
    const [memberships] = fake.requests("GET", "/user_management/organization_memberships");
    expect(memberships?.query.get("organization_id")).toBe(ORG);
    expect(memberships?.query.get("user_id")).toBe(ID);
    expect(fake.requests("GET", `/user_management/users/${ID}`)[0]?.headers.authorization).toBe(`Bearer ${WORKOS_API_KEY}`);
  });

  it("without an organization: roles of every active membership, and no updateUserRoles", async () => {
    const workos = provider(WORKOS_API_KEY, "");
    expect((await workos.getUser?.(ID))?.roles).toEqual(["member", "admin"]);
    expect(workos.updateUserRoles).toBeUndefined();
    expect(workos.updateUserPermissions).toBeUndefined();
  });

  it("finds a user by email, and answers undefined when none has it", async () => {
    const workos = provider();
    expect((await workos.getUserByEmail?.("ada@example.com"))?.id).toBe(ID);
    expect(fake.requests("GET", "/user_management/users")[0]?.query.get("email")).toBe("ada@example.com");
    expect(await workos.getUserByEmail?.("nobody@example.com")).toBeUndefined();
  });

  it("merges metadata and writes it with PUT, values as strings, null removing a key", async () => {
    const user = await provider().updateUserMetadata?.(ID, { seats: 5, team: null });
    const [put] = fake.requests("PUT", `/user_management/users/${ID}`);
    expect(put?.body).toEqual({ metadata: { plan: "pro", seats: "5" } });
    expect(put?.headers.authorization).toBe(`Bearer ${WORKOS_API_KEY}`);
    expect(user?.metadata).toEqual({ plan: "pro", seats: "5" });
  });

  it("sets roles on the organization membership: role_slug for one, role_slugs for several", async () => {
    const workos = provider();
    expect((await workos.updateUserRoles?.(ID, ["admin"]))?.roles).toEqual(["admin"]);
    expect((await workos.updateUserRoles?.(ID, ["admin", "billing"]))?.roles).toEqual(["admin", "billing"]);
    expect(fake.requests("PUT", "/user_management/organization_memberships/om_1").map((request) => request.body)).toEqual([
      { role_slug: "admin" },
      { role_slugs: ["admin", "billing"] },
    ]);
  });

  it("raises UserNotFoundError for WorkOS's 404 entity_not_found", async () => {
    await expect(provider().getUser?.("user_missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("user_missing", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("raises the provider error with the status for 401 and 500", async () => {
    const refused = await provider("sk_test_wrong")
      .getUser?.(ID)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(JSON.stringify(refused) + (refused as Error).message).not.toContain("sk_test_wrong");
    fake.failWith(500);
    await expect(provider().getUser?.(ID)).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when WorkOS cannot be reached, and has no operations without an API key", async () => {
    const down = createWorkOSProvider({ clientId: "client_1", apiUrl: "http://127.0.0.1:1", apiKey: "k" }, { sessions: false });
    await expect(down.getUser?.(ID)).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE });
    expect(createWorkOSProvider({ clientId: "client_1" }, { sessions: false }).getUser).toBeUndefined();
  });
});
