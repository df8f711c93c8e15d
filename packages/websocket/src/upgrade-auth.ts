import type { IncomingMessage } from "node:http";
import { ServerAdapterError } from "@conduit-ai/server-core";
import { type CredentialScheme, credentialSourceOf, readCredential, within } from "@conduit-ai/server-core/internal";
import type { WebSocketAuthConfig, WebSocketUser } from "./websocket-config.js";

export type UpgradeAuthResult =
  | { ok: true; user?: WebSocketUser }
  /** `unavailable`: the validator threw a 503 error (its identity provider is down): refused with it, not with 401. */
  | { ok: false; reason: string; unavailable?: ServerAdapterError };

const SCHEMES: Record<string, CredentialScheme> = { bearer: "bearer", apiKey: "api-key", basic: "basic" };

/**
 * The credential for the strategy, or undefined when the request carries none: server-core's
 * `readCredential`, the same rule (header, cookie, query parameter) as the HTTP auth middleware.
 */
function extractCredential(request: IncomingMessage, auth: WebSocketAuthConfig): string | undefined {
  if (auth.strategy === "custom") return auth.extractToken?.(request) ?? undefined;
  const scheme = SCHEMES[auth.strategy];
  if (!scheme) return undefined;
  const extraction = readCredential(credentialSourceOf(request), {
    scheme,
    headerName: auth.headerName,
    cookieName: auth.cookieName,
    queryParam: auth.queryParam,
  });
  return extraction.kind === "token" ? extraction.token : undefined;
}

/**
 * Authenticates an upgrade request with the configured strategy. Never throws: a
 * missing credential, a null user, a validator that throws or exceeds `timeoutMs`
 * all refuse (a validator that throws a 503 error refuses with that error: the identity
 * provider is down).
 *
 * @example
 * await authenticateUpgrade(request, { strategy: "bearer", validate: (token) => (token === "t" ? { id: "u1" } : null) });
 */
export async function authenticateUpgrade(request: IncomingMessage, auth: WebSocketAuthConfig): Promise<UpgradeAuthResult> {
  if (auth.strategy === "none") return { ok: true };
  if (!auth.validate) return { ok: false, reason: "No validator configured" };
  const credential = extractCredential(request, auth);
  if (!credential) return { ok: false, reason: "Authentication required" };
  try {
    const user = await within(Promise.resolve(auth.validate(credential, { request })), auth.timeoutMs ?? 5000);
    if (user === "timeout") return { ok: false, reason: "Authentication timed out" };
    return user && typeof user.id === "string" ? { ok: true, user } : { ok: false, reason: "Invalid credentials" };
  } catch (error) {
    // Still closed, but retryable: the client can tell "try again" from "your credential is bad", as on HTTP.
    if (ServerAdapterError.isInstance(error) && error.statusCode === 503) return { ok: false, reason: error.message, unavailable: error };
    return { ok: false, reason: "Invalid credentials" };
  }
}
