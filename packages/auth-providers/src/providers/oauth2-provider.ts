import { BaseAuthProvider, type ProviderOptions, type VerifiedToken } from "../base-provider.js";
import { CLAIM_MAPPING_SETTINGS, type ClaimMapping, claimsToUser, stringsFrom } from "../claims.js";
import { joinUrl, readSettings, setting, settingsProblem } from "../config/settings-reader.js";
import { InvalidConfigurationError, InvalidTokenError, ProviderAPIError, TokenExpiredError } from "../errors/auth-errors.js";
import { requestJson } from "../tokens/http-json.js";
import { ResultCache } from "../tokens/result-cache.js";
import { type TokenClient, refreshGrant, revokeAtServer } from "./oauth2-token-operations.js";

/** Settings of the `oauth2` type (aliases `oauth`, `oidc`, `openid-connect`). */
export interface OAuth2ProviderSettings extends ClaimMapping {
  type?: "oauth2" | "oauth" | "oidc" | "openid-connect";
  /** The issuer: endpoints are discovered at `<issuer>/.well-known/openid-configuration` unless given below. */
  issuer?: string;
  /** Overrides the discovery document's address. */
  discoveryUrl?: string;
  /** RFC 7662 endpoint (needs `clientId` and `clientSecret`, sent as HTTP Basic). */
  introspectionUrl?: string;
  /** OIDC userinfo endpoint (called with the token itself). */
  userinfoUrl?: string;
  clientId?: string;
  clientSecret?: string;
  /** Default: `introspection` when client credentials and an introspection endpoint are known, else `userinfo`. */
  mode?: "introspection" | "userinfo";
  /** Accepted `aud` values of introspection results (checked when the result carries `aud`). */
  audience?: string | string[];
  /** Results are cached until their `exp`, and at most this long. Default 300 000 (userinfo results: 60 000). */
  cacheTtlMs?: number;
  /** Per request to the identity provider. Default 5000. */
  timeoutMs?: number;
  /** RFC 6749 token endpoint for `refreshToken` (needs client credentials). Default: discovery's `token_endpoint`. */
  tokenUrl?: string;
  /** RFC 7009 revocation endpoint for `revokeToken` (needs client credentials). Default: discovery's `revocation_endpoint`. */
  revocationUrl?: string;
}

interface Endpoints {
  introspection?: string;
  userinfo?: string;
  /** RFC 6749 token endpoint (the refresh grant). */
  token?: string;
  /** RFC 7009 revocation endpoint. */
  revocation?: string;
}

/**
 * Opaque (or any) access tokens checked by the authorization server: RFC 7662 introspection
 * with client credentials, or OIDC userinfo. Endpoints come from the settings or from OIDC
 * discovery. Results are cached (by the token's digest) until their `exp`, capped by
 * `cacheTtlMs`; an inactive token is refused, an expired one says so.
 *
 * @example
 * const provider = createOAuth2Provider({
 *   introspectionUrl: "https://auth.example.com/oauth2/introspect",
 *   clientId: "conduit", clientSecret: process.env.OAUTH_CLIENT_SECRET!,
 * });
 */
export class OAuth2Provider extends BaseAuthProvider {
  readonly #settings: OAuth2ProviderSettings;
  readonly #mapping: ClaimMapping;
  readonly #cache = new ResultCache<VerifiedToken>();
  #endpoints: Promise<Endpoints> | undefined;

  constructor(settings: OAuth2ProviderSettings, options: ProviderOptions = {}) {
    super("oauth2", options);
    this.#settings = settings;
    this.#mapping = settings;
  }

  /** The endpoints, from the settings, and from discovery when one of `needed` is not set. */
  #discover(needed: Array<keyof Endpoints> = ["introspection", "userinfo"]): Promise<Endpoints> {
    const settings = this.#settings;
    const known: Endpoints = {
      ...(settings.introspectionUrl ? { introspection: settings.introspectionUrl } : {}),
      ...(settings.userinfoUrl ? { userinfo: settings.userinfoUrl } : {}),
      ...(settings.tokenUrl ? { token: settings.tokenUrl } : {}),
      ...(settings.revocationUrl ? { revocation: settings.revocationUrl } : {}),
    };
    const discoveryUrl =
      settings.discoveryUrl ?? (settings.issuer ? joinUrl(settings.issuer, "/.well-known/openid-configuration") : undefined);
    if (!discoveryUrl || needed.every((name) => known[name])) return Promise.resolve(known);
    this.#endpoints ??= requestJson(this.type, discoveryUrl, {
      timeoutMs: settings.timeoutMs ?? 5000,
      onReachability: this.availability.report,
    })
      .then(({ body }) => {
        const document = body as Record<string, unknown>;
        if (
          settings.issuer &&
          typeof document.issuer === "string" &&
          document.issuer.replace(/\/$/, "") !== settings.issuer.replace(/\/$/, "")
        ) {
          throw new ProviderAPIError(this.type, "Discovery document names another issuer");
        }
        return {
          ...(typeof document.introspection_endpoint === "string" ? { introspection: document.introspection_endpoint } : {}),
          ...(typeof document.userinfo_endpoint === "string" ? { userinfo: document.userinfo_endpoint } : {}),
          ...(typeof document.token_endpoint === "string" ? { token: document.token_endpoint } : {}),
          ...(typeof document.revocation_endpoint === "string" ? { revocation: document.revocation_endpoint } : {}),
          ...known,
        };
      })
      .catch((error) => {
        // A failed discovery is retried on the next request rather than remembered.
        this.#endpoints = undefined;
        throw error;
      });
    return this.#endpoints;
  }

  #mode(endpoints: Endpoints): "introspection" | "userinfo" {
    const settings = this.#settings;
    if (settings.mode) return settings.mode;
    return endpoints.introspection && settings.clientId && settings.clientSecret ? "introspection" : "userinfo";
  }

  protected async verifyToken(token: string): Promise<VerifiedToken> {
    const cached = this.#cache.get(token);
    if (cached) return cached;
    const endpoints = await this.#discover();
    const mode = this.#mode(endpoints);
    const claims = mode === "introspection" ? await this.#introspect(token, endpoints) : await this.#userinfo(token, endpoints);
    // RFC 7662 makes `sub` optional: a client-credentials token names its client instead.
    const mapping =
      this.#mapping.userIdClaim === undefined && claims.sub === undefined && typeof claims.client_id === "string"
        ? { ...this.#mapping, userIdClaim: "client_id" }
        : this.#mapping;
    const user = claimsToUser(claims, mapping, { permissions: ["permissions"], extraPermissions: stringsFrom(claims.scope) });
    if (!user) throw new InvalidTokenError(this.type, "Token names no user", { details: { reason: "claim" } });
    const exp = typeof claims.exp === "number" ? claims.exp * 1000 : undefined;
    const verified: VerifiedToken = { user, claims, ...(exp === undefined ? {} : { expiresAt: exp }) };
    const cap = Date.now() + (this.#settings.cacheTtlMs ?? (mode === "userinfo" ? 60_000 : 300_000));
    this.#cache.set(token, verified, exp === undefined ? cap : Math.min(exp, cap));
    return verified;
  }

  async #introspect(token: string, endpoints: Endpoints): Promise<Record<string, unknown>> {
    const { clientId, clientSecret, timeoutMs = 5000 } = this.#settings;
    if (!endpoints.introspection) throw new ProviderAPIError(this.type, "No introspection endpoint is known");
    const credentials = Buffer.from(`${encodeURIComponent(clientId ?? "")}:${encodeURIComponent(clientSecret ?? "")}`).toString("base64");
    const { body } = await requestJson(this.type, endpoints.introspection, {
      method: "POST",
      timeoutMs,
      onReachability: this.availability.report,
      headers: { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    });
    const result = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    if (result.active !== true) throw new InvalidTokenError(this.type, "Token is not active", { details: { reason: "inactive" } });
    if (typeof result.exp === "number" && result.exp * 1000 <= Date.now()) throw new TokenExpiredError(this.type);
    if (typeof result.nbf === "number" && result.nbf * 1000 > Date.now() + 5000)
      throw new InvalidTokenError(this.type, "Token is not valid yet", { details: { reason: "claim", claim: "nbf" } });
    const audience = this.#settings.audience;
    if (audience !== undefined && result.aud !== undefined) {
      const accepted = Array.isArray(audience) ? audience : [audience];
      if (!stringsFrom(result.aud).some((value) => accepted.includes(value))) {
        throw new InvalidTokenError(this.type, "Token audience is not accepted", { details: { reason: "claim", claim: "aud" } });
      }
    }
    return result;
  }

  async #userinfo(token: string, endpoints: Endpoints): Promise<Record<string, unknown>> {
    if (!endpoints.userinfo) throw new ProviderAPIError(this.type, "No userinfo endpoint is known");
    const { status, body } = await requestJson(this.type, endpoints.userinfo, {
      timeoutMs: this.#settings.timeoutMs ?? 5000,
      onReachability: this.availability.report,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      acceptStatus: [401, 403],
    });
    if (status === 401 || status === 403)
      throw new InvalidTokenError(this.type, "Token refused by the identity provider", { details: { reason: "inactive" } });
    if (typeof body !== "object" || body === null) throw new ProviderAPIError(this.type, "Userinfo answer is not an object");
    return body as Record<string, unknown>;
  }

  /**
   * RFC 6749 §6 refresh grant at the token endpoint (client credentials as HTTP Basic): a new
   * access token, and a new refresh token when the server rotates them. A refused refresh token
   * (`invalid_grant`) is 401 `AUTH_INVALID`.
   *
   * @example
   * const { accessToken, refreshToken } = await provider.refreshToken(stored.refreshToken);
   */
  async refreshToken(refreshToken: string): Promise<{ accessToken: string; refreshToken?: string; expiresIn?: number }> {
    const { token } = await this.#discover(["token"]);
    return refreshGrant(this.type, token, this.#client(), refreshToken, this.availability.report);
  }

  /**
   * RFC 7009 revocation of an access or refresh token; the token is also dropped from this
   * provider's cache, so it is refused here at once rather than when its cached result expires.
   *
   * @example
   * await provider.revokeToken(accessToken);
   */
  async revokeToken(token: string): Promise<void> {
    this.#cache.delete(token);
    const { revocation } = await this.#discover(["revocation"]);
    await revokeAtServer(this.type, revocation, this.#client(), token, this.availability.report);
  }

  #client(): TokenClient {
    const { clientId, clientSecret, timeoutMs = 5000 } = this.#settings;
    if (!clientId || !clientSecret) throw new InvalidConfigurationError(this.type, "Token operations need clientId and clientSecret");
    return { clientId, clientSecret, timeoutMs };
  }

  protected override async probe(): Promise<string | undefined> {
    const endpoints = await this.#discover();
    return `${this.#mode(endpoints)} via ${new URL(endpoints.introspection ?? endpoints.userinfo ?? "http://unknown").host}`;
  }

  /** Discovers the endpoints ahead of the first request; an identity provider down at startup is retried per request. */
  override async initialize(): Promise<void> {
    await this.#discover().catch(() => undefined);
  }
}

/**
 * Creates the `oauth2` provider after checking its settings (one of `issuer`, `discoveryUrl`,
 * `introspectionUrl`, `userinfoUrl`; client credentials for introspection).
 *
 * @example
 * createOAuth2Provider({ issuer: "https://login.example.com", clientId: "api", clientSecret: secret });
 */
export function createOAuth2Provider(settings: OAuth2ProviderSettings, options: ProviderOptions = {}): OAuth2Provider {
  const checked = readSettings<OAuth2ProviderSettings>("oauth2", settings, {
    issuer: setting.url(),
    discoveryUrl: setting.url(),
    introspectionUrl: setting.url(),
    userinfoUrl: setting.url(),
    clientId: setting.string(),
    clientSecret: setting.string(),
    mode: setting.oneOf(["introspection", "userinfo"]),
    audience: setting.strings(),
    cacheTtlMs: setting.number(0),
    timeoutMs: setting.number(1),
    tokenUrl: setting.url(),
    revocationUrl: setting.url(),
    ...CLAIM_MAPPING_SETTINGS,
  });
  if (!checked.issuer && !checked.discoveryUrl && !checked.introspectionUrl && !checked.userinfoUrl) {
    throw settingsProblem("oauth2", "auth", "give issuer, discoveryUrl, introspectionUrl or userinfoUrl");
  }
  const introspecting = checked.mode === "introspection" || (checked.mode === undefined && checked.introspectionUrl !== undefined);
  if (introspecting && (!checked.clientId || !checked.clientSecret)) {
    throw settingsProblem("oauth2", "auth.clientSecret", "introspection needs clientId and clientSecret");
  }
  return new OAuth2Provider(checked, options);
}
