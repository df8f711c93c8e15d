import type { ProviderOptions } from "../base-provider.js";
import { CLAIM_MAPPING_SETTINGS, type ClaimMapping } from "../claims.js";
import { type SettingsShape, readSettings, setting } from "../config/settings-reader.js";
import type { JwtVerifierOptions } from "../tokens/jwt-verifier.js";
import { type ClaimProfile, JwtTokenProvider, VERIFIER_SETTINGS, mappingFrom, verifierOptionsFrom } from "./jwt-token-provider.js";

/** Settings every vendor type accepts beside its own: overrides of what it derives, verifier knobs, claim mapping. */
export interface VendorCommonSettings extends ClaimMapping {
  /** Overrides the derived JWKS URL (self-hosted instances, tests). */
  jwksUrl?: string;
  /** Overrides the derived issuer (one or several accepted values). */
  issuer?: string | string[];
  audience?: string | string[];
  algorithms?: string | string[];
  clockToleranceSec?: number;
  maxTokenAgeSec?: number;
  requiredClaims?: string | string[];
  jwksCacheMaxAgeMs?: number;
  jwksCooldownMs?: number;
  jwksTimeoutMs?: number;
  verifiedCacheTtlMs?: number;
  /** Required `typ` header of the token. */
  typ?: string;
}

const COMMON = { ...VERIFIER_SETTINGS, ...CLAIM_MAPPING_SETTINGS, jwksUrl: setting.url() } satisfies SettingsShape<VendorCommonSettings>;

/** What a vendor derives from its natural settings. */
export interface VendorDerivation {
  /** Derived key source and claim checks; the user's overrides are applied on top. */
  verifier: JwtVerifierOptions;
  profile: Omit<ClaimProfile, "mapping">;
}

/**
 * Checks a vendor's settings (its own `spec` plus the common keys), derives its verifier and
 * claim profile, then lets every explicitly given common key (`jwksUrl`, `issuer`,
 * `audience`, …) override what was derived.
 */
export function createVendorProvider<S extends VendorCommonSettings>(
  type: string,
  settings: S,
  spec: SettingsShape<Omit<S, keyof VendorCommonSettings>>,
  derive: (settings: S) => VendorDerivation,
  options: ProviderOptions,
): JwtTokenProvider {
  const checked = readSettings<S>(type, settings, { ...COMMON, ...spec });
  const { verifier, profile } = derive(checked);
  const overrides = verifierOptionsFrom(checked as unknown as Record<string, unknown>);
  const merged: JwtVerifierOptions = { ...verifier, ...overrides, ...(checked.jwksUrl ? { jwksUrl: checked.jwksUrl } : {}) };
  // A derived JWKS URL loses to an explicit secret or public key of the vendor's own settings.
  if (merged.secret !== undefined || merged.publicKey !== undefined) delete merged.jwksUrl;
  return new JwtTokenProvider(type, merged, { ...profile, mapping: mappingFrom(checked) }, options);
}

/** `example.auth0.com` → `https://example.auth0.com`; a value with a scheme is kept (self-hosted, tests). */
export const originOf = (hostOrUrl: string): string => (hostOrUrl.includes("://") ? hostOrUrl : `https://${hostOrUrl}`).replace(/\/+$/, "");
