import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { type FakeServiceAccount, type FirebaseFakeState, startFirebaseFake } from "../../testing/vendor-fakes/firebase-fake.js";
import { createFirebaseProvider } from "../firebase-provider.js";

const PROJECT = "conduit-test";
let fake: AdminApiFake;
let state: FirebaseFakeState;
let serviceAccount: FakeServiceAccount;

beforeAll(async () => {
  ({ fake, state, serviceAccount } = await startFirebaseFake(PROJECT));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  state.assertions.length = 0;
  state.users = new Map([
    [
      "uid-1",
      {
        localId: "uid-1",
        email: "ada@example.com",
        displayName: "Ada Lovelace",
        customAttributes: JSON.stringify({ role: "editor", permissions: ["reports:read"], plan: "pro" }),
      },
    ],
  ]);
});

const provider = (account: object | string = serviceAccount) =>
  createFirebaseProvider({ projectId: PROJECT, serviceAccount: account as never, adminUrl: fake.origin }, { sessions: false });

describe("firebase user operations (Identity Toolkit REST)", () => {
  it("gets a user: roles and permissions from the custom claims, the rest as metadata", async () => {
    expect(await provider().getUser?.("uid-1")).toEqual({
      id: "uid-1",
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["editor"],
      permissions: ["reports:read"],
      metadata: { plan: "pro" },
    });
    const [lookup] = fake.requests("POST", `/v1/projects/${PROJECT}/accounts:lookup`);
    expect(lookup?.body).toEqual({ localId: ["uid-1"] });
    expect(lookup?.headers.authorization).toBe("Bearer ya29.fake-1");
  });

  it("gets its token by the JWT bearer grant, signed with the service account key, once", async () => {
    const firebase = provider(JSON.stringify(serviceAccount));
    await firebase.getUser?.("uid-1");
    await firebase.getUserByEmail?.("ada@example.com");
    const tokenRequests = fake.requests("POST", "/token");
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.body).toMatchObject({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" });
    expect(state.assertions[0]).toMatchObject({
      iss: serviceAccount.client_email,
      aud: serviceAccount.token_uri,
      scope: expect.stringContaining("https://www.googleapis.com/auth/identitytoolkit"),
    });
    const { iat, exp } = state.assertions[0] as { iat: number; exp: number };
    expect(exp - iat).toBe(3600);
  });

  it("finds a user by email, and answers undefined when none has it", async () => {
    const firebase = provider();
    expect((await firebase.getUserByEmail?.("ada@example.com"))?.id).toBe("uid-1");
    expect(fake.requests("POST", `/v1/projects/${PROJECT}/accounts:lookup`)[0]?.body).toEqual({ email: ["ada@example.com"] });
    expect(await firebase.getUserByEmail?.("nobody@example.com")).toBeUndefined();
  });

  it("merges metadata into the custom claims with accounts:update", async () => {
    const user = await provider().updateUserMetadata?.("uid-1", { seats: 5, plan: null });
    const [update] = fake.requests("POST", `/v1/projects/${PROJECT}/accounts:update`);
    expect(update?.headers.authorization).toMatch(/^Bearer ya29\./);
    expect(update?.body).toEqual({
      localId: "uid-1",
      customAttributes: JSON.stringify({ role: "editor", permissions: ["reports:read"], seats: 5 }),
    });
    expect(user?.metadata).toEqual({ seats: 5 });
  });

  it("sets roles (replacing a single role claim) and permissions as custom claims", async () => {
    const firebase = provider();
    expect((await firebase.updateUserRoles?.("uid-1", ["admin", "billing"]))?.roles).toEqual(["admin", "billing"]);
    expect((await firebase.updateUserPermissions?.("uid-1", ["reports:write"]))?.permissions).toEqual(["reports:write"]);
    expect(JSON.parse(String(state.users.get("uid-1")?.customAttributes))).toEqual({
      permissions: ["reports:write"],
      plan: "pro",
      roles: ["admin", "billing"],
    });
  });

  it("raises UserNotFoundError when the lookup finds no user and for 400 USER_NOT_FOUND", async () => {
    await expect(provider().getUser?.("uid-missing")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("uid-missing", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
    const firebase = provider();
    await firebase.getUser?.("uid-1");
    fake.failWith(400, { error: { code: 400, message: "USER_NOT_FOUND" } });
    await expect(firebase.getUser?.("uid-1")).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("raises the provider error with the status for 401 and 500, never with the key", async () => {
    const firebase = provider();
    await firebase.getUser?.("uid-1");
    fake.failWith(401, { error: { code: 401, status: "UNAUTHENTICATED" } });
    const refused = await firebase.getUser?.("uid-1").catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 401 } });
    expect(JSON.stringify(refused) + (refused as Error).message).not.toContain("PRIVATE KEY");
    fake.failWith(500);
    await expect(firebase.getUser?.("uid-1")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when Google cannot be reached; refuses a key without private_key", async () => {
    const down = provider({ ...serviceAccount, token_uri: "http://127.0.0.1:1/token" });
    await expect(down.getUser?.("uid-1")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE });
    expect(() => provider({ client_email: "a@b.c" })).toThrow(/serviceAccount\.private_key: required/);
    expect(createFirebaseProvider({ projectId: PROJECT }, { sessions: false }).getUser).toBeUndefined();
  });
});
