import { signAwsRequest } from "../../providers/user-management/aws-sigv4.js";
import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export const COGNITO_CREDENTIALS = { accessKeyId: "AKIAFAKECONDUIT", secretAccessKey: "fake/secret/key+CONDUIT" } as const;

export interface CognitoFakeUser {
  Username: string;
  Attributes: Array<{ Name: string; Value: string }>;
  groups: string[];
}

export interface CognitoFakeState {
  users: Map<string, CognitoFakeUser>;
  groups: Set<string>;
  /** `X-Amz-Target` actions received with a valid signature, in order. */
  actions: string[];
}

const fault = (type: string, message: string, status = 400): FakeAnswer => ({
  status,
  json: { __type: type, message },
  headers: { "content-type": "application/x-amz-json-1.1" },
});

/** The `amz-date` header back to a Date (`20150830T123600Z`). */
const dateOf = (amzDate: string): Date =>
  new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );

/** Recomputes the SigV4 signature over the signed headers; true when it matches and the scope is the pool's region and `cognito-idp`. */
function signatureValid(request: ReceivedRequest, region: string): boolean {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(request.headers.authorization),
    );
  if (!match || match[1] !== COGNITO_CREDENTIALS.accessKeyId || match[3] !== region || match[4] !== "cognito-idp") return false;
  const signed = (match[5] as string).split(";");
  const given = Object.fromEntries(
    signed
      .filter((name) => !["host", "x-amz-date", "x-amz-security-token"].includes(name))
      .map((name) => [name, String(request.headers[name])]),
  );
  const sessionToken = request.headers["x-amz-security-token"];
  const expected = signAwsRequest(
    {
      method: request.method,
      url: `http://${request.headers.host}${request.path}`,
      headers: given,
      body: request.text,
      region,
      service: "cognito-idp",
    },
    { ...COGNITO_CREDENTIALS, ...(typeof sessionToken === "string" ? { sessionToken } : {}) },
    dateOf(String(request.headers["x-amz-date"])),
  );
  return expected.authorization === request.headers.authorization;
}

/**
 * Cognito user pools' JSON 1.1 API as its wire format has it: `POST /` with
 * `X-Amz-Target: AWSCognitoIdentityProviderService.<Action>`, a SigV4 signature it checks,
 * faults as 400 `{__type, message}`. Actions: AdminGetUser, ListUsers (`sub`/`email` filters),
 * AdminListGroupsForUser, AdminUpdateUserAttributes, AdminDeleteUserAttributes,
 * AdminAddUserToGroup, AdminRemoveUserFromGroup.
 *
 * @example
 * const { fake, state } = await startCognitoFake("eu-west-1", "eu-west-1_AbC");
 */
export async function startCognitoFake(region: string, userPoolId: string): Promise<{ fake: AdminApiFake; state: CognitoFakeState }> {
  const state: CognitoFakeState = { users: new Map(), groups: new Set(), actions: [] };
  const route = (request: ReceivedRequest): FakeAnswer | undefined => {
    if (request.method !== "POST" || request.path !== "/") return fault("UnknownOperationException", "Unknown operation", 404);
    if (request.headers["content-type"] !== "application/x-amz-json-1.1") return fault("SerializationException", "bad content type");
    if (!signatureValid(request, region))
      return fault("InvalidSignatureException", "The request signature we calculated does not match the signature you provided.");
    const action = String(request.headers["x-amz-target"]).replace("AWSCognitoIdentityProviderService.", "");
    state.actions.push(action);
    const body = request.body as Record<string, unknown>;
    if (body.UserPoolId !== userPoolId) return fault("ResourceNotFoundException", "User pool does not exist.");
    if (action === "ListUsers") {
      const filter = /^(\w+) = "(.*)"$/.exec(String(body.Filter));
      const found = [...state.users.values()].filter((user) =>
        user.Attributes.some((attribute) => attribute.Name === filter?.[1] && attribute.Value === filter?.[2]),
      );
      return {
        json: { Users: found.slice(0, Number(body.Limit ?? 60)).map(({ groups: _groups, ...user }) => ({ ...user, Enabled: true })) },
      };
    }
    const user = state.users.get(String(body.Username));
    if (!user) return fault("UserNotFoundException", "User does not exist.");
    switch (action) {
      case "AdminGetUser":
        return { json: { Username: user.Username, UserAttributes: user.Attributes, Enabled: true, UserStatus: "CONFIRMED" } };
      case "AdminListGroupsForUser":
        return { json: { Groups: user.groups.map((GroupName) => ({ GroupName, UserPoolId: userPoolId })) } };
      case "AdminUpdateUserAttributes":
        for (const attribute of body.UserAttributes as Array<{ Name: string; Value: string }>) {
          user.Attributes = [...user.Attributes.filter((existing) => existing.Name !== attribute.Name), attribute];
        }
        return { json: {} };
      case "AdminDeleteUserAttributes":
        user.Attributes = user.Attributes.filter((attribute) => !(body.UserAttributeNames as string[]).includes(attribute.Name));
        return { json: {} };
      case "AdminAddUserToGroup":
        if (!state.groups.has(String(body.GroupName))) return fault("ResourceNotFoundException", "Group not found.");
        user.groups = [...user.groups, String(body.GroupName)];
        return { json: {} };
      case "AdminRemoveUserFromGroup":
        user.groups = user.groups.filter((group) => group !== body.GroupName);
        return { json: {} };
      default:
        return fault("UnknownOperationException", action);
    }
  };
  return { fake: await startAdminApiFake(route), state };
}
