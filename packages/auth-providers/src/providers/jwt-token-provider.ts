import { BaseAuthProvider, type ProviderOptions, type VerifiedToken } from "../base-provider.js";
import { type ClaimMapping, claimsToUser } from "../claims.js";
import { setting } from "../config/settings-reader.js";
import { InvalidTokenError } from "../errors/auth-errors.js";
import { type JwtVerifier, type JwtVerifierOptions, createJwtVerifier } from "../tokens/jwt-verifier.js";
import type { AuthenticatedUser, TokenValidationResult } from "../types.js";

/** How a provider type reads its claims: the claim mapping, plus vendor claims it adds and checks it makes. */
export interface ClaimProfile {
  mapping: ClaimMapping;
  /** Vendor defaults when the settings name no `rolesClaim` / `permissionsClaim`. */
  defaultRoleClaims?: string[];
  defaultPermissionClaims?: string[];
  /** Roles and permissions derived from vendor-specific claims (Keycloak client roles, Cognito scopes). */
  derive?: (claims: Record<string, unknown>) => { roles?: string[]; permissions?: string[] };
  /** A vendor's own acceptance rule (Cognito `token_use`, Clerk `azp`); a string is the refusal message. */
  check?: (claims: Record<string, unknown>) => string | undefined;
}

/**
 * A provider whose tokens are JWTs: the `jwt` type and every vendor type. Verification is
 * jose's (see `createJwtVerifier`); the profile turns claims into the user.
 *
 * @example
 * const provider = new JwtTokenProvider("jwt", { jwksUrl, issuer, audience }, { mapping: { rolesClaim: "roles" } });
 */
export class JwtTokenProvider extends BaseAuthProvider {
  readonly verifier: JwtVerifier;
  readonly #profile: ClaimProfile;
  /** Mapped results per verified claim set: the verifier hands back the same object for a cached token, so a hot token is mapped once. */
  readonly #mapped = new WeakMap<object, VerifiedToken>();
  /** The settings after derivation (JWKS URL, issuer), for diagnostics. */
  readonly resolved: Readonly<JwtVerifierOptions>;

  constructor(type: string, verifierOptions: JwtVerifierOptions, profile: ClaimProfile, options: ProviderOptions = {}) {
    super(type, options);
    this.resolved = verifierOptions;
    this.verifier = createJwtVerifier(type, { ...verifierOptions, logger: this.logger, onReachability: this.availability.report });
    this.#profile = profile;
  }

  /** The user a verified claim set names; undefined when it names none. */
  mapUser(claims: Record<string, unknown>): AuthenticatedUser | undefined {
    const derived = this.#profile.derive?.(claims) ?? {};
    return claimsToUser(claims, this.#profile.mapping, {
      ...(this.#profile.defaultRoleClaims ? { roles: this.#profile.defaultRoleClaims } : {}),
      ...(this.#profile.defaultPermissionClaims ? { permissions: this.#profile.defaultPermissionClaims } : {}),
      ...(derived.roles ? { extraRoles: derived.roles } : {}),
      ...(derived.permissions ? { extraPermissions: derived.permissions } : {}),
    });
  }

  protected async verifyToken(token: string): Promise<VerifiedToken> {
    const claims = (await this.verifier.verify(token)) as Record<string, unknown>;
    const known = this.#mapped.get(claims);
    if (known) return known;
    const problem = this.#profile.check?.(claims);
    if (problem) throw new InvalidTokenError(this.type, problem, { details: { reason: "claim" } });
    const user = this.mapUser(claims);
    // Fail closed: a valid signature over claims that name no user is no identity.
    if (!user) throw new InvalidTokenError(this.type, "Token names no user", { details: { reason: "claim" } });
    const verified: VerifiedToken = { user, claims, ...(typeof claims.exp === "number" ? { expiresAt: claims.exp * 1000 } : {}) };
    this.#mapped.set(claims, verified);
    return verified;
  }

  /** A token verified earlier and still within its cache lifetime and `exp`: no await, no signature check. */
  override authenticateCached(token: string): TokenValidationResult | undefined {
    const claims = this.verifier.peek(token);
    const verified = claims ? this.#mapped.get(claims) : undefined;
    return verified ? this.validResult(verified) : undefined;
  }

  protected override async probe(): Promise<string | undefined> {
    await this.verifier.reload();
    return this.resolved.jwksUrl || this.#discovers() ? "key set reachable" : undefined;
  }

  #discovers(): boolean {
    const { secret, publicKey, jwksUrl } = this.resolved;
    return secret === undefined && publicKey === undefined && jwksUrl === undefined;
  }

  /**
   * With discovery, reads the issuer's OpenID configuration now, so a misspelt issuer is a startup
   * warning; an identity provider down at startup is retried by the first request.
   */
  override async initialize(): Promise<void> {
    if (this.#discovers()) await this.verifier.reload().catch(() => undefined);
  }
}

/** Verifier option keys shared by every JWT-based type's settings (the key source aside). */
export const VERIFIER_SETTINGS = {
  algorithms: setting.strings(),
  issuer: setting.strings(),
  audience: setting.strings(),
  clockToleranceSec: setting.number(0),
  maxTokenAgeSec: setting.number(1),
  requiredClaims: setting.strings(),
  typ: setting.string(),
  jwksCacheMaxAgeMs: setting.number(0),
  jwksCooldownMs: setting.number(0),
  jwksTimeoutMs: setting.number(1),
  verifiedCacheTtlMs: setting.number(0),
};

/** The verifier options named in `settings` (string-or-list values normalized), the rest left to defaults. */
export function verifierOptionsFrom(settings: Record<string, unknown>): JwtVerifierOptions {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(VERIFIER_SETTINGS)) {
    const value = settings[key];
    if (value === undefined) continue;
    options[key] = (key === "algorithms" || key === "requiredClaims") && typeof value === "string" ? [value] : value;
  }
  return options as JwtVerifierOptions;
}

/** The claim mapping named in `settings`. */
export function mappingFrom(settings: ClaimMapping): ClaimMapping {
  const mapping: ClaimMapping = {};
  for (const key of ["userIdClaim", "emailClaim", "nameClaim", "rolesClaim", "permissionsClaim"] as const) {
    if (settings[key] !== undefined) (mapping as Record<string, unknown>)[key] = settings[key];
  }
  return mapping;
}
