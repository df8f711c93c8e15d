import type { JWK } from "jose";
import type { ProviderOptions } from "../base-provider.js";
import { CLAIM_MAPPING_SETTINGS, type ClaimMapping } from "../claims.js";
import { readSettings, setting } from "../config/settings-reader.js";
import type { JwtVerifierOptions } from "../tokens/jwt-verifier.js";
import { JwtTokenProvider, VERIFIER_SETTINGS, mappingFrom, verifierOptionsFrom } from "./jwt-token-provider.js";

/** Settings of the `jwt` type: one key source, then the usual claim checks and mapping. */
export interface JwtProviderSettings
  extends Omit<JwtVerifierOptions, "jwksHeaders" | "verifiedCacheSize" | "maxTokenLength">,
    ClaimMapping {
  type?: "jwt";
  secret?: string;
  publicKey?: string | JWK;
  jwksUrl?: string;
  /** With none of the three above: where `jwks_uri` is read. Default `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl?: string;
}

/**
 * Any JWT issuer: HS256/384/512 with a shared `secret`; RS, PS, ES and EdDSA algorithms with a `publicKey`
 * (PEM or JWK) or a `jwksUrl` (cached, refetched on an unknown `kid` after a cooldown, so keys
 * rotate without a restart) — or just the `issuer`: the key set URL is then read from its OpenID
 * configuration (`jwks_uri`), and an issuer spelled with or without the document's trailing slash
 * is a startup warning naming both. `iss`, `aud`, `exp`, `nbf` checked with `clockToleranceSec`.
 * Roles from `rolesClaim` (default `roles`), permissions from `permissionsClaim` (default `permissions`).
 *
 * @example
 * const provider = createJwtProvider({
 *   issuer: "https://id.example.com/", // jwks_uri from https://id.example.com/.well-known/openid-configuration
 *   audience: "conduit-api",
 *   rolesClaim: "roles",
 * });
 */
export function createJwtProvider(settings: JwtProviderSettings, options: ProviderOptions = {}): JwtTokenProvider {
  const checked = readSettings<JwtProviderSettings>("jwt", settings, {
    secret: setting.string(),
    publicKey: setting.stringOrObject(),
    jwksUrl: setting.url(),
    discoveryUrl: setting.url(),
    ...VERIFIER_SETTINGS,
    ...CLAIM_MAPPING_SETTINGS,
  });
  const verifier: JwtVerifierOptions = verifierOptionsFrom(checked as unknown as Record<string, unknown>);
  if (checked.secret !== undefined) verifier.secret = checked.secret;
  if (checked.publicKey !== undefined) verifier.publicKey = checked.publicKey;
  if (checked.jwksUrl !== undefined) verifier.jwksUrl = checked.jwksUrl;
  if (checked.discoveryUrl !== undefined) verifier.discoveryUrl = checked.discoveryUrl;
  return new JwtTokenProvider("jwt", verifier, { mapping: mappingFrom(checked) }, options);
}
