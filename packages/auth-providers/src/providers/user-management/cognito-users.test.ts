import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AuthErrorCode, UserNotFoundError } from "../../errors/auth-errors.js";
import type { AdminApiFake } from "../../testing/admin-api-fake.js";
import { COGNITO_CREDENTIALS, type CognitoFakeState, startCognitoFake } from "../../testing/vendor-fakes/cognito-fake.js";
import { createCognitoProvider } from "../cognito-provider.js";

const REGION = "eu-west-1";
const POOL = "eu-west-1_AbC";
const SUB = "8f3b1c2d-0000-4000-8000-000000000001";
let fake: AdminApiFake;
let state: CognitoFakeState;

beforeAll(async () => {
  ({ fake, state } = await startCognitoFake(REGION, POOL));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.received.length = 0;
  fake.failWith(undefined);
  state.actions.length = 0;
  state.groups = new Set(["admin", "editor", "billing"]);
  state.users = new Map([
    [
      "ada",
      {
        Username: "ada",
        Attributes: [
          { Name: "sub", Value: SUB },
          { Name: "email", Value: "ada@example.com" },
          { Name: "name", Value: "Ada Lovelace" },
          { Name: "custom:plan", Value: "pro" },
        ],
        groups: ["editor"],
      },
    ],
  ]);
});

const provider = (secretAccessKey: string = COGNITO_CREDENTIALS.secretAccessKey) =>
  createCognitoProvider(
    { region: REGION, userPoolId: POOL, accessKeyId: COGNITO_CREDENTIALS.accessKeyId, secretAccessKey, adminUrl: fake.origin },
    { sessions: false },
  );

describe("cognito user operations (JSON 1.1 admin actions, SigV4)", () => {
  it("gets a user by username: sub as id, groups as roles, custom attributes as metadata", async () => {
    expect(await provider().getUser?.("ada")).toEqual({
      id: SUB,
      email: "ada@example.com",
      name: "Ada Lovelace",
      roles: ["editor"],
      permissions: [],
      metadata: { plan: "pro" },
    });
    expect(state.actions).toEqual(["AdminGetUser", "AdminListGroupsForUser"]);
    const [first] = fake.received;
    expect(first?.headers["x-amz-target"]).toBe("AWSCognitoIdentityProviderService.AdminGetUser");
    expect(first?.headers["content-type"]).toBe("application/x-amz-json-1.1");
    expect(first?.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${COGNITO_CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/cognito-idp/aws4_request, `),
    );
    expect(first?.body).toEqual({ UserPoolId: POOL, Username: "ada" });
  });

  it("gets a user by the sub a token carries (ListUsers filter) when no username matches", async () => {
    expect((await provider().getUser?.(SUB))?.id).toBe(SUB);
    expect(state.actions).toEqual(["AdminGetUser", "ListUsers", "AdminListGroupsForUser"]);
    expect(fake.received[1]?.body).toEqual({ UserPoolId: POOL, Filter: `sub = "${SUB}"`, Limit: 1 });
  });

  it("finds a user by email with a ListUsers filter, and answers undefined when none has it", async () => {
    const cognito = provider();
    expect((await cognito.getUserByEmail?.("ada@example.com"))?.roles).toEqual(["editor"]);
    expect(fake.received[0]?.body).toEqual({ UserPoolId: POOL, Filter: 'email = "ada@example.com"', Limit: 1 });
    expect(await cognito.getUserByEmail?.('x"@example.com')).toBeUndefined();
    expect(fake.received.at(-1)?.body).toMatchObject({ Filter: 'email = "x\\"@example.com"' });
  });

  it("writes metadata as custom attributes, deleting the ones set to null", async () => {
    const user = await provider().updateUserMetadata?.(SUB, { seats: 5, plan: null });
    expect(state.actions).toContain("AdminUpdateUserAttributes");
    const update = fake.received.find((request) => String(request.headers["x-amz-target"]).endsWith("AdminUpdateUserAttributes"));
    expect(update?.body).toEqual({ UserPoolId: POOL, Username: "ada", UserAttributes: [{ Name: "custom:seats", Value: "5" }] });
    const remove = fake.received.find((request) => String(request.headers["x-amz-target"]).endsWith("AdminDeleteUserAttributes"));
    expect(remove?.body).toEqual({ UserPoolId: POOL, Username: "ada", UserAttributeNames: ["custom:plan"] });
    expect(user?.metadata).toEqual({ seats: "5" });
  });

  it("sets roles as group memberships: removes the others, adds the missing", async () => {
    const user = await provider().updateUserRoles?.("ada", ["admin", "billing"]);
    const changes = fake.received
      .filter((request) => /AdminAddUserToGroup|AdminRemoveUserFromGroup/.test(String(request.headers["x-amz-target"])))
      .map((request) => [String(request.headers["x-amz-target"]).split(".")[1], (request.body as { GroupName: string }).GroupName]);
    expect(changes).toEqual([
      ["AdminRemoveUserFromGroup", "editor"],
      ["AdminAddUserToGroup", "admin"],
      ["AdminAddUserToGroup", "billing"],
    ]);
    expect(user?.roles).toEqual(["admin", "billing"]);
  });

  it("refuses a group the pool does not have as a provider error naming it", async () => {
    await expect(provider().updateUserRoles?.("ada", ["editor", "ghosts"])).rejects.toMatchObject({
      code: AuthErrorCode.PROVIDER_API_ERROR,
      message: expect.stringContaining('"ghosts"'),
    });
  });

  it("has no updateUserPermissions: Cognito keeps no per-user permissions", () => {
    expect(provider().updateUserPermissions).toBeUndefined();
  });

  it("raises UserNotFoundError for UserNotFoundException", async () => {
    await expect(provider().getUser?.("nobody")).rejects.toBeInstanceOf(UserNotFoundError);
    await expect(provider().updateUserRoles?.("nobody", ["admin"])).rejects.toBeInstanceOf(UserNotFoundError);
  });

  it("a wrong secret fails the signature check: provider error with the status, the secret never named", async () => {
    const refused = await provider("wrong/secret")
      .getUser?.("ada")
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 400 } });
    expect(JSON.stringify(refused) + (refused as Error).message).not.toContain("wrong/secret");
    expect(state.actions).toEqual([]);
    fake.failWith(500, { __type: "InternalErrorException", message: "boom" });
    await expect(provider().getUser?.("ada")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_API_ERROR, details: { status: 500 } });
  });

  it("answers AUTH_PROVIDER_UNAVAILABLE when Cognito cannot be reached, and has no operations without IAM credentials", async () => {
    const down = createCognitoProvider(
      { region: REGION, userPoolId: POOL, accessKeyId: "a", secretAccessKey: "b", adminUrl: "http://127.0.0.1:1" },
      { sessions: false },
    );
    await expect(down.getUser?.("ada")).rejects.toMatchObject({ code: AuthErrorCode.PROVIDER_UNAVAILABLE });
    expect(createCognitoProvider({ region: REGION, userPoolId: POOL }, { sessions: false }).getUser).toBeUndefined();
  });
});
