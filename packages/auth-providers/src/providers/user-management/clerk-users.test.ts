import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { CLERK_SECRET_KEY, startClerkFake } from "../../testing/vendor-fakes/clerk-fake.js";
import { createClerkProvider } from "../clerk-provider.js";

let fake: AdminApiFake;
let users: Map<string, Record<string, unknown>>;

beforeAll(async () => {
  ({ fake, users } = await startClerkFake());
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  users.clear();
  users.set("user_1", {
    object: "user",
    id: "user_1",
    username: "ada",
    first_name: "Ada",
    last_name: "Lovelace",
    primary_email_address_id: "idn_2",
    email_addresses: [
      { id: "idn_1", object: "email_address", email_address: "old@example.com" },
      { id: "idn_2", object: "email_address", email_address: "ada@example.com" },
    ],
    public_metadata: { roles: ["editor"], permissions: ["reports:read"], plan: "pro", limits: { seats: 2, storage: 10 } },
    private_metadata: { stripe: "cus_1" },
    unsafe_metadata: {},
  });
});

const provider = (secretKey = CLERK_SECRET_KEY) =>
  createClerkProvider({ frontendApi: "https://clerk.example.com", secretKey, apiUrl: fake.origin }, { sessions: false });

describe("clerk user operations (Backend API)", () => {
  it("gets a user: primary email, roles and permissions from public_metadata, the rest as metadata", async () => {
    expect(await provider().getUser?.("user_1")).toEqual({
      id: "user_1",
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["editor"],
      permissions: ["reports:read"],
      metadata: { plan: "pro", limits: { seats: 2, storage: 10 } },
    });
    const [get] = fake.requests("GET", "/v1/users/user_1");
    expect(get?.headers.authorization).toBe(`Bearer ${CLERK_SECRET_KEY}`);
  });

  it("finds a user by email address, and answers undefined when none has it", async () => {
    const clerk = provider();
    expect((await clerk.getUserByEmail?.("ada@example.com"))?.id).toBe("user_1");
    expect(fake.requests("GET", "/v1/users")[0]?.query.get("email_address")).toBe("ada@example.com");
    expect(await clerk.getUserByEmail?.("nobody@example.com")).toBeUndefined();
  });

  it("merges metadata into public_metadata with PATCH /v1/users/{id}/metadata", async () => {
    const user = await provider().updateUserMetadata?.("user_1", { limits: { seats: 5 }, plan: null });
    const [patch] = fake.requests("PATCH", "/v1/users/user_1/metadata");
    expect(patch?.body).toEqual({ public_metadata: { limits: { seats: 5 }, plan: null } });
    expect(patch?.headers.authorization).toBe(`Bearer ${CLERK_SECRET_KEY}`);
    expect(user?.metadata).toEqual({ limits: { seats: 5, storage: 10 } });
    expect(user?.roles).toEqual(["editor"]);
  });

  it("sets roles and permissions in public_metadata", async () => {
    const clerk = provider();
    expect((await clerk.updateUserRoles?.("user_1", ["admin", "editor"]))?.roles).toEqual(["admin", "editor"]);
    expect(fake.requests("PATCH", "/v1/users/user_1/metadata")[0]?.body).toEqual({ public_metadata: { roles: ["admin", "editor"] } });
    expect((await clerk.updateUserPermissions?.("user_1", ["reports:write"]))?.permissions).toEqual(["reports:write"]);
    expect(fake.requests("PATCH", "/v1/users/user_1/metadata")[1]?.body).toEqual({ public_metadata: { permissions: ["reports:write"] } });
  });

  it("raises UserNotFoundError for Clerk's 404 resource_not_found", async () => {
    await expect(provider().getUser?.("user_missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("user_missing", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("raises the provider error with the status for 401 and 500, never naming the key", async () => {
    const refused = await provider("sk_test_wrong")
      .getUser?.("user_1")
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(JSON.stringify(refused) + (refused as Error).message).not.toContain("sk_test_wrong");
    fake.failWith(500);
    await expect(provider().getUser?.("user_1")).rejects.toMatchObject({
      code: AuthErrorCode.PROVIDER_API_ERROR,
      details: { status: 500 },
    });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when the Backend API cannot be reached, and has no operations without a secret key", async () => {
    const down = createClerkProvider({ secretKey: CLERK_SECRET_KEY, apiUrl: "http://127.0.0.1:1" }, { sessions: false });
    await expect(down.getUser?.("user_1")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE, statusCode: 503 });
    expect(createClerkProvider({ frontendApi: "https://clerk.example.com" }, { sessions: false }).getUser).toBeUndefined();
  });
});
