import { type KeyObject, generateKeyPairSync } from "node:crypto";
import { jwtVerify } from "jose";
import { type AdminApiFake, type FakeAnswer, type ReceivedRequest, startAdminApiFake } from "../admin-api-fake.js";

export interface FirebaseFakeState {
  /** Identity Toolkit users by `localId`. */
  users: Map<string, Record<string, unknown>>;
  /** Claims of every accepted JWT bearer assertion. */
  assertions: Array<Record<string, unknown>>;
  tokensIssued: number;
}

/** A service account key file for the fake (a fresh RSA key; `token_uri` points at the fake). */
export interface FakeServiceAccount {
  type: "service_account";
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  token_uri: string;
}

const userNotFound = {
  error: { code: 400, message: "USER_NOT_FOUND", errors: [{ message: "USER_NOT_FOUND", domain: "global", reason: "invalid" }] },
};

/**
 * Google's OAuth token endpoint (JWT bearer grant, checking the assertion's signature with the
 * service account's public key) and Identity Toolkit v1: `accounts:lookup` (`{users}` or `{}`) and
 * `accounts:update` (`customAttributes` as a JSON string; 400 `USER_NOT_FOUND`).
 *
 * @example
 * const { fake, state, serviceAccount } = await startFirebaseFake("my-project");
 */
export async function startFirebaseFake(
  projectId: string,
): Promise<{ fake: AdminApiFake; state: FirebaseFakeState; serviceAccount: FakeServiceAccount }> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const state: FirebaseFakeState = { users: new Map(), assertions: [], tokensIssued: 0 };
  const tokens = new Set<string>();
  const serviceAccount: FakeServiceAccount = {
    type: "service_account",
    project_id: projectId,
    private_key_id: "key-1",
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: `conduit@${projectId}.iam.gserviceaccount.com`,
    token_uri: "", // set once the port is known
  };
  const verifyKey: KeyObject = publicKey;
  const prefix = `/v1/projects/${projectId}/`;
  const route = async (request: ReceivedRequest): Promise<FakeAnswer | undefined> => {
    if (request.method === "POST" && request.path === "/token") {
      const form = request.body as Record<string, string>;
      if (form.grant_type !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
        return { status: 400, json: { error: "unsupported_grant_type" } };
      try {
        const { payload } = await jwtVerify(String(form.assertion), verifyKey, {
          issuer: serviceAccount.client_email,
          audience: serviceAccount.token_uri,
        });
        state.assertions.push(payload as Record<string, unknown>);
      } catch {
        return { status: 400, json: { error: "invalid_grant", error_description: "Invalid JWT Signature." } };
      }
      const token = `ya29.fake-${++state.tokensIssued}`;
      tokens.add(token);
      return { json: { access_token: token, expires_in: 3599, token_type: "Bearer" } };
    }
    if (!tokens.has(String(request.headers.authorization).replace(/^Bearer /, "")))
      return {
        status: 401,
        json: { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } },
      };
    const body = request.body as Record<string, unknown>;
    if (request.path === `${prefix}accounts:lookup`) {
      const ids = (body.localId as string[] | undefined) ?? [];
      const emails = (body.email as string[] | undefined) ?? [];
      const found = [...state.users.values()].filter((user) => ids.includes(String(user.localId)) || emails.includes(String(user.email)));
      return {
        json:
          found.length > 0
            ? { kind: "identitytoolkit#GetAccountInfoResponse", users: found }
            : { kind: "identitytoolkit#GetAccountInfoResponse" },
      };
    }
    if (request.path === `${prefix}accounts:update`) {
      const user = state.users.get(String(body.localId));
      if (!user) return { status: 400, json: userNotFound };
      if (typeof body.customAttributes === "string") user.customAttributes = body.customAttributes;
      return { json: { kind: "identitytoolkit#SetAccountInfoResponse", localId: user.localId, email: user.email } };
    }
    return undefined;
  };
  const fake = await startAdminApiFake(route, { error: { code: 404, message: "Not Found", status: "NOT_FOUND" } });
  serviceAccount.token_uri = `${fake.origin}/token`;
  return { fake, state, serviceAccount };
}
