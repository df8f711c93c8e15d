import { createHash, randomBytes } from "node:crypto";
import { joinUrl } from "../config/settings-reader.js";
import { InvalidTokenError, ProviderAPIError } from "../errors/auth-errors.js";
import { requestJson } from "../tokens/http-json.js";
import { createJwtVerifier } from "../tokens/jwt-verifier.js";

/** An OpenID Provider the console's users sign in at (the authorization code flow). */
export interface OidcSignInSettings {
  /** The issuer exactly as its ID tokens name it; endpoints come from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** Overrides the discovery document's address. */
  discoveryUrl?: string;
  clientId: string;
  /** A confidential client's secret (sent as HTTP Basic); without it the client is public and PKCE alone binds the code. */
  clientSecret?: string;
  /** Default `openid profile email`. */
  scopes?: string[];
  /** Per request to the identity provider. Default 5000. */
  timeoutMs?: number;
}

/** One sign-in's secrets, made at its start and checked at its callback. */
export interface OidcSignInStart {
  /** Where the browser goes (302). */
  url: string;
  state: string;
  nonce: string;
  /** The PKCE code verifier (its S256 challenge is in `url`). */
  verifier: string;
}

/** The authorization code flow with PKCE (`S256`), `state` and `nonce`; the ID token verified with jose. */
export interface OidcSignIn {
  readonly issuer: string;
  /** A new sign-in: the authorization URL and the values to keep until the callback. */
  start(redirectUri: string): Promise<OidcSignInStart>;
  /**
   * Exchanges the code at the token endpoint (with the PKCE verifier) and returns the ID
   * token's verified claims: signature by the issuer's key set, `iss`, `aud` = the client id
   * (and `azp` when several audiences), `exp`, and `nonce` equal to the one sent.
   */
  finish(input: { code: string; redirectUri: string; verifier: string; nonce: string }): Promise<Record<string, unknown>>;
  /** The provider's end-session URL (RP-initiated logout) back to `postLogoutRedirectUri`, when it has one. */
  endSessionUrl(postLogoutRedirectUri: string): Promise<string | undefined>;
}

const randomToken = () => randomBytes(32).toString("base64url");

/**
 * A sign-in client for the console (or any relying party) on one OpenID Provider.
 *
 * @example
 * const signIn = createOidcSignIn({ issuer: "https://login.example.com", clientId: "conduit-console", clientSecret });
 * const { url, state, nonce, verifier } = await signIn.start("https://gw.example.com/console/api/sso/callback");
 * const claims = await signIn.finish({ code, redirectUri, verifier, nonce });
 */
export function createOidcSignIn(settings: OidcSignInSettings): OidcSignIn {
  const provider = "oidc";
  const timeoutMs = settings.timeoutMs ?? 5000;
  const discoveryUrl = settings.discoveryUrl ?? joinUrl(settings.issuer, "/.well-known/openid-configuration");
  let document: Promise<Record<string, unknown>> | undefined;
  const discover = () =>
    (document ??= requestJson(provider, discoveryUrl, { timeoutMs })
      .then(({ body }) => {
        const found = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
        if (typeof found.issuer === "string" && found.issuer.replace(/\/$/, "") !== settings.issuer.replace(/\/$/, ""))
          throw new ProviderAPIError(provider, "Discovery document names another issuer");
        if (typeof found.authorization_endpoint !== "string" || typeof found.token_endpoint !== "string")
          throw new ProviderAPIError(provider, "Discovery document has no authorization or token endpoint");
        return found;
      })
      .catch((error: unknown) => {
        // Retried by the next sign-in rather than remembered.
        document = undefined;
        throw error;
      }));
  const verifier = createJwtVerifier(provider, {
    issuer: settings.issuer,
    ...(settings.discoveryUrl ? { discoveryUrl: settings.discoveryUrl } : {}),
    audience: settings.clientId,
    requiredClaims: ["exp", "iat", "sub"],
    // Each ID token is used once: nothing to gain from remembering it.
    verifiedCacheTtlMs: 0,
  });

  return {
    issuer: settings.issuer,
    async start(redirectUri) {
      const found = await discover();
      const state = randomToken();
      const nonce = randomToken();
      const codeVerifier = randomToken();
      const url = new URL(found.authorization_endpoint as string);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("client_id", settings.clientId);
      url.searchParams.set("redirect_uri", redirectUri);
      url.searchParams.set("scope", (settings.scopes ?? ["openid", "profile", "email"]).join(" "));
      url.searchParams.set("state", state);
      url.searchParams.set("nonce", nonce);
      url.searchParams.set("code_challenge", createHash("sha256").update(codeVerifier).digest("base64url"));
      url.searchParams.set("code_challenge_method", "S256");
      return { url: url.toString(), state, nonce, verifier: codeVerifier };
    },
    async finish({ code, redirectUri, verifier: codeVerifier, nonce }) {
      const found = await discover();
      const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier });
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
      if (settings.clientSecret !== undefined) {
        const basic = `${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`;
        headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
      } else form.set("client_id", settings.clientId);
      const { body } = await requestJson(provider, found.token_endpoint as string, {
        method: "POST",
        timeoutMs,
        headers,
        body: form.toString(),
      });
      const idToken = (body as { id_token?: unknown } | undefined)?.id_token;
      if (typeof idToken !== "string") throw new InvalidTokenError(provider, "The token endpoint answered no ID token");
      const claims = (await verifier.verify(idToken)) as Record<string, unknown>;
      if (claims.nonce !== nonce)
        throw new InvalidTokenError(provider, "ID token nonce does not match", { details: { reason: "claim", claim: "nonce" } });
      // Several audiences: the authorized party must be us (OpenID Connect Core 3.1.3.7).
      if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== settings.clientId)
        throw new InvalidTokenError(provider, "ID token azp is not this client", { details: { reason: "claim", claim: "azp" } });
      return claims;
    },
    async endSessionUrl(postLogoutRedirectUri) {
      const found = await discover().catch(() => undefined);
      if (typeof found?.end_session_endpoint !== "string") return undefined;
      const url = new URL(found.end_session_endpoint);
      url.searchParams.set("client_id", settings.clientId);
      url.searchParams.set("post_logout_redirect_uri", postLogoutRedirectUri);
      return url.toString();
    },
  };
}
