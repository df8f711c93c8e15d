import { createSign } from "node:crypto";
import { readFileSync } from "node:fs";

/** The fields of a Google service-account key file (JSON) that a token exchange needs. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  /** Where the signed JWT is exchanged for an access token (the file's `token_uri`). */
  tokenUri: string;
}

const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** A token is renewed this long before it expires, so no request leaves with one about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;

/** Reads a service-account key file; throws an `Error` whose message says what is wrong with it. */
export function readServiceAccount(path: string): ServiceAccount {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "not valid JSON";
    throw new Error(`cannot read the service-account file ${path} (${reason})`);
  }
  const { client_email: clientEmail, private_key: privateKey, private_key_id: privateKeyId, token_uri: tokenUri } = parsed ?? {};
  if (parsed?.type !== "service_account" || typeof clientEmail !== "string" || typeof privateKey !== "string")
    throw new Error(`${path} is not a service-account key file (type "service_account" with client_email and private_key)`);
  return {
    clientEmail,
    privateKey,
    ...(typeof privateKeyId === "string" ? { privateKeyId } : {}),
    tokenUri: typeof tokenUri === "string" ? tokenUri : GOOGLE_TOKEN_URI,
  };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** The RS256-signed JWT assertion of OAuth 2.0's JWT bearer grant (RFC 7523) for `account`. */
export function signedAssertion(account: ServiceAccount, nowSeconds: number): string {
  const header = { alg: "RS256", typ: "JWT", ...(account.privateKeyId ? { kid: account.privateKeyId } : {}) };
  const claims = { iss: account.clientEmail, scope: CLOUD_PLATFORM_SCOPE, aud: account.tokenUri, iat: nowSeconds, exp: nowSeconds + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(account.privateKey);
  return `${unsigned}.${base64url(signature)}`;
}

/**
 * Access tokens for a service account: a signed JWT exchanged at the key file's `token_uri`,
 * kept until five minutes before it expires, one exchange at a time. Done here rather than by
 * `google-auth-library` because that library always posts to Google's public token endpoint,
 * whatever the key file's `token_uri` says (private endpoints and tests use another).
 *
 * @example
 * const token = serviceAccountTokens(readServiceAccount("/etc/conduit/vertex.json"));
 * const headers = { authorization: `Bearer ${await token()}` };
 */
export function serviceAccountTokens(account: ServiceAccount, send: typeof fetch = globalThis.fetch): () => Promise<string> {
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const exchange = async (): Promise<string> => {
    const body = new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: signedAssertion(account, Math.floor(Date.now() / 1000)),
    });
    const response = await send(account.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await response.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error_description?: unknown;
    };
    if (!response.ok || typeof answer.access_token !== "string") {
      const reason = typeof answer.error_description === "string" ? `: ${answer.error_description}` : "";
      throw new Error(
        `The token endpoint ${account.tokenUri} refused the service account ${account.clientEmail} (${response.status})${reason}`,
      );
    }
    const lifetimeMs = (typeof answer.expires_in === "number" ? answer.expires_in : 3600) * 1000;
    current = { token: answer.access_token, renewAt: Date.now() + Math.max(0, lifetimeMs - RENEW_BEFORE_MS) };
    return answer.access_token;
  };
  return () => {
    if (current !== undefined && Date.now() < current.renewAt) return Promise.resolve(current.token);
    pending ??= exchange().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
