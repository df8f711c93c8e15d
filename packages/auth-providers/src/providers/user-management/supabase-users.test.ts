import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { SUPABASE_SERVICE_ROLE_KEY, startSupabaseFake } from "../../testing/vendor-fakes/supabase-fake.js";
import { createSupabaseProvider } from "../supabase-provider.js";

const ID = "3b5e0e2c-0000-4000-8000-000000000001";
let fake: AdminApiFake;
let users: Map<string, Record<string, unknown>>;

beforeAll(async () => {
  ({ fake, users } = await startSupabaseFake());
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  users.clear();
  users.set(ID, {
    id: ID,
    aud: "authenticated",
    role: "authenticated",
    email: "ada@example.com",
    app_metadata: { provider: "email", providers: ["email"], roles: ["editor"], permissions: ["reports:read"] },
    user_metadata: { full_name: "Ada Lovelace" },
  });
  // Users whose email contains the wanted one: the filter is a substring search, the match must be exact.
  for (let index = 0; index < 60; index++) {
    users.set(`other-${index}`, { id: `other-${index}`, email: `x${index}.ada@example.com`, app_metadata: {}, user_metadata: {} });
  }
});

const provider = (serviceRoleKey = SUPABASE_SERVICE_ROLE_KEY) =>
  createSupabaseProvider({ url: fake.origin, serviceRoleKey }, { sessions: false });

describe("supabase user operations (Auth admin API)", () => {
  it("gets a user: roles and permissions from app_metadata, the rest as metadata", async () => {
    expect(await provider().getUser?.(ID)).toEqual({
      id: ID,
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["editor"],
      permissions: ["reports:read"],
      metadata: { provider: "email", providers: ["email"] },
    });
    const [get] = fake.requests("GET", `/auth/v1/admin/users/${ID}`);
    expect(get?.headers.apikey).toBe(SUPABASE_SERVICE_ROLE_KEY);
    expect(get?.headers.authorization).toBe(`Bearer ${SUPABASE_SERVICE_ROLE_KEY}`);
  });

  it("finds a user by exact email through the filtered admin list, paging past near matches", async () => {
    const supabase = provider();
    expect((await supabase.getUserByEmail?.("ADA@example.com"))?.id).toBe(ID);
    const [first] = fake.requests("GET", "/auth/v1/admin/users");
    expect(first?.query.get("filter")).toBe("ADA@example.com");
    fake.received.length = 0;
    expect(await supabase.getUserByEmail?.("da@example.com")).toBeUndefined();
    expect(fake.requests("GET", "/auth/v1/admin/users").map((request) => request.query.get("page"))).toEqual(["1", "2"]);
  });

  it("merges metadata into app_metadata with PUT", async () => {
    const user = await provider().updateUserMetadata?.(ID, { plan: "pro", providers: null });
    const [put] = fake.requests("PUT", `/auth/v1/admin/users/${ID}`);
    expect(put?.body).toEqual({ app_metadata: { plan: "pro", providers: null } });
    expect(put?.headers.authorization).toBe(`Bearer ${SUPABASE_SERVICE_ROLE_KEY}`);
    expect(user?.metadata).toEqual({ provider: "email", plan: "pro" });
  });

  it("sets roles and permissions in app_metadata", async () => {
    const supabase = provider();
    expect((await supabase.updateUserRoles?.(ID, ["admin"]))?.roles).toEqual(["admin"]);
    expect((await supabase.updateUserPermissions?.(ID, ["reports:write"]))?.permissions).toEqual(["reports:write"]);
    expect(fake.requests("PUT", `/auth/v1/admin/users/${ID}`).map((request) => request.body)).toEqual([
      { app_metadata: { roles: ["admin"] } },
      { app_metadata: { permissions: ["reports:write"] } },
    ]);
  });

  it("raises UserNotFoundError for Supabase's 404 user_not_found", async () => {
    await expect(provider().getUser?.("missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("missing", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("raises the provider error with the status for 401 and 500", async () => {
    const refused = await provider("wrong-key")
      .getUser?.(ID)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(JSON.stringify(refused) + (refused as Error).message).not.toContain("wrong-key");
    fake.failWith(500);
    await expect(provider().getUser?.(ID)).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when the project cannot be reached, and has no operations without the key", async () => {
    const down = createSupabaseProvider({ url: "http://127.0.0.1:1", serviceRoleKey: "k" }, { sessions: false });
    await expect(down.getUser?.(ID)).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE });
    expect(createSupabaseProvider({ url: "https://abcd.supabase.co" }, { sessions: false }).getUser).toBeUndefined();
  });
});
