import type { AccountConfig } from "../../config.js";
import { forwardedRequestHeaders } from "../../relay/headers.js";

const OAUTH_BETA = "oauth-2025-04-20";

/**
 * Headers for the Messages API: the client's own (anthropic-version, anthropic-beta, ...) minus
 * credentials and framing, plus the account's credential — `x-api-key` for an API key, a bearer
 * token and the OAuth beta for an OAuth account.
 */
export function messagesRequestHeaders(incoming: Record<string, string>, account: AccountConfig, secret: string): Record<string, string> {
  const headers = forwardedRequestHeaders(incoming);
  if (account.type === "api-key") {
    headers["x-api-key"] = secret;
    return headers;
  }
  headers.authorization = `Bearer ${secret}`;
  const betas = headers["anthropic-beta"]?.split(",").map((beta) => beta.trim()) ?? [];
  if (!betas.includes(OAUTH_BETA)) headers["anthropic-beta"] = [...betas.filter(Boolean), OAUTH_BETA].join(",");
  return headers;
}

/** The credential headers alone (the `/limits` probe builds its own small request). */
export function credentialHeaders(account: AccountConfig, secret: string): Record<string, string> {
  return account.type === "api-key" ? { "x-api-key": secret } : { authorization: `Bearer ${secret}`, "anthropic-beta": OAUTH_BETA };
}

/** The request's `metadata.user_id`, read only when the bytes mention it. */
export function userIdOf(body: Uint8Array): string | undefined {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes.indexOf('"user_id"') === -1) return undefined;
  try {
    const parsed = JSON.parse(bytes.toString("utf8")) as { metadata?: { user_id?: unknown } };
    const userId = parsed.metadata?.user_id;
    return typeof userId === "string" && userId !== "" ? userId : undefined;
  } catch {
    return undefined;
  }
}
