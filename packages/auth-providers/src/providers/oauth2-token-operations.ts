import { InvalidTokenError, ProviderAPIError } from "../errors/auth-errors.js";
import type { ReachabilityReport } from "../health/provider-availability.js";
import { requestJson } from "../tokens/http-json.js";

/** The confidential client the operations authenticate as (RFC 6749 §2.3.1, HTTP Basic). */
export interface TokenClient {
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

function formRequest(client: TokenClient, form: Record<string, string>, onReachability: ReachabilityReport) {
  // RFC 6749 §2.3.1: the client id and secret are form-urlencoded before Basic encoding.
  const credentials = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64");
  return {
    method: "POST",
    timeoutMs: client.timeoutMs,
    onReachability,
    headers: { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form).toString(),
    acceptStatus: [400, 401],
  };
}

/**
 * RFC 6749 §6: exchanges a refresh token for a new access token. A 400/401 answer
 * (`invalid_grant`: expired, revoked or foreign refresh token; `invalid_client`) refuses with
 * 401 `AUTH_INVALID`; an unreachable server is `AUTH_PROVIDER_UNAVAILABLE` (503).
 *
 * @example
 * await refreshGrant("oauth2", "https://id.example.com/token", client, refreshToken, report);
 */
export async function refreshGrant(
  provider: string,
  endpoint: string | undefined,
  client: TokenClient,
  refreshToken: string,
  onReachability: ReachabilityReport,
): Promise<{ accessToken: string; refreshToken?: string; expiresIn?: number }> {
  if (!endpoint) throw new ProviderAPIError(provider, "No token endpoint is known");
  const { status, body } = await requestJson(
    provider,
    endpoint,
    formRequest(client, { grant_type: "refresh_token", refresh_token: refreshToken }, onReachability),
  );
  if (status === 400 || status === 401)
    throw new InvalidTokenError(provider, "Refresh token refused by the identity provider", { details: { reason: "inactive" } });
  const answer = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof answer.access_token !== "string") throw new ProviderAPIError(provider, "Token endpoint answered without access_token");
  return {
    accessToken: answer.access_token,
    ...(typeof answer.refresh_token === "string" ? { refreshToken: answer.refresh_token } : {}),
    ...(typeof answer.expires_in === "number" ? { expiresIn: answer.expires_in } : {}),
  };
}

/**
 * RFC 7009: revokes an access or refresh token. The server answers 200 for unknown tokens too
 * (§2.2), so success says only that the token is not valid any more.
 *
 * @example
 * await revokeAtServer("oauth2", "https://id.example.com/revoke", client, token, report);
 */
export async function revokeAtServer(
  provider: string,
  endpoint: string | undefined,
  client: TokenClient,
  token: string,
  onReachability: ReachabilityReport,
): Promise<void> {
  if (!endpoint) throw new ProviderAPIError(provider, "No revocation endpoint is known");
  const { status } = await requestJson(provider, endpoint, formRequest(client, { token }, onReachability));
  if (status === 400 || status === 401) throw new ProviderAPIError(provider, "Revocation refused by the identity provider");
}
