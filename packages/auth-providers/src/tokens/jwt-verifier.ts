import { type KeyObject, X509Certificate, createPublicKey } from "node:crypto";
import { type JWK, type JWTPayload, type JWTVerifyGetKey, createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from "jose";
import type { Logger } from "@conduit-ai/server-core";
import type { ReachabilityReport } from "../health/provider-availability.js";
import { discoverJwksUrl } from "./jwks-discovery.js";
import { InvalidTokenError } from "../errors/auth-errors.js";
import { settingsProblem } from "../config/settings-reader.js";
import { toAuthError } from "./jose-errors.js";
import { VerifiedTokenCache } from "./verified-token-cache.js";

const HMAC = ["HS256", "HS384", "HS512"];
const RSA = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
const EC = ["ES256", "ES384", "ES512"];
const OKP = ["EdDSA", "Ed25519"];
/** Every asymmetric algorithm: the default for a key set, whose keys say their own type. */
export const ASYMMETRIC_ALGORITHMS = [...RSA, ...EC, ...OKP];

/** Where the verification key comes from: exactly one. */
export interface JwtKeySource {
  /** Shared secret for HS256/384/512 (at least 32 bytes: shorter secrets are brute-forceable). */
  secret?: string;
  /** A PEM public key (SPKI), a PEM X.509 certificate, or a public JWK (object or JSON text). */
  publicKey?: string | JWK;
  /** A JWKS URL: fetched on first use, cached, refetched on an unknown `kid` (after a cooldown). */
  jwksUrl?: string;
  /**
   * With no key source: the OpenID configuration to read `jwks_uri` from. Default, when `issuer`
   * is one string: `<issuer>/.well-known/openid-configuration`.
   */
  discoveryUrl?: string;
}

export interface JwtVerifierOptions extends JwtKeySource {
  /** Accepted algorithms; default: HS* for a secret, the key's family for a public key, every asymmetric one for a JWKS. */
  algorithms?: string[];
  /** Accepted `iss` value(s); when set, a token without `iss` is refused too. */
  issuer?: string | string[];
  /** Accepted `aud` value(s). */
  audience?: string | string[];
  /** Seconds of leeway on `exp`/`nbf`/`iat`. Default 5. */
  clockToleranceSec?: number;
  /** Refuse tokens older than this many seconds (`iat`). */
  maxTokenAgeSec?: number;
  /** Claims a token must carry. Default `["exp"]`: a token that never expires is refused. */
  requiredClaims?: string[];
  /** Expected `typ` header (e.g. `at+jwt`). */
  typ?: string;
  /** JWKS: keys are refetched after this many ms. Default 600 000. */
  jwksCacheMaxAgeMs?: number;
  /** JWKS: minimum ms between fetches triggered by an unknown `kid`. Default 30 000. */
  jwksCooldownMs?: number;
  /** JWKS: request timeout. Default 5000. */
  jwksTimeoutMs?: number;
  /** JWKS: headers of the key set request (e.g. a Backend API key). */
  jwksHeaders?: Record<string, string>;
  /** Verified tokens are remembered for this long (bounded by their `exp`); 0 turns it off. Default 60 000. */
  verifiedCacheTtlMs?: number;
  /** Default 10 000 tokens. */
  verifiedCacheSize?: number;
  /** Tokens longer than this are refused unparsed. Default 16 384. */
  maxTokenLength?: number;
  /** Startup warnings (an issuer spelled differently from its discovery document). */
  logger?: Logger;
  /** Told after every key set request whether the identity provider answered (outage tracking). */
  onReachability?: ReachabilityReport;
}

export interface JwtVerifier {
  /** Verified claims; throws an `AuthProviderError` (401 for any refused token). */
  verify(token: string): Promise<JWTPayload>;
  /** The claims of a token verified earlier and still valid, synchronously (no check is made here). */
  peek(token: string): JWTPayload | undefined;
  /** Fetches the key set now (a health check); no-op for static keys. */
  reload(): Promise<void>;
}

/** `fetch` that reports whether the key set endpoint answered (a 5xx counts as not answering). */
function observedFetch(report: ReachabilityReport, host: string | undefined): typeof fetch {
  return (input, init) =>
    fetch(input, init).then(
      (response) => {
        report(response.status < 500, host);
        return response;
      },
      (error: unknown) => {
        report(false, host);
        throw error;
      },
    );
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

const CURVES: Record<string, string[]> = { prime256v1: ["ES256"], secp384r1: ["ES384"], secp521r1: ["ES512"] };

/**
 * The public key as a Node `KeyObject` and the algorithms its type can verify. Synchronous,
 * so a bad key is a startup error. A private key is refused: it does not belong in a verifier.
 */
function importPublicKey(provider: string, publicKey: string | JWK): { key: KeyObject; family: string[] } {
  const problem = () => settingsProblem(provider, "auth.publicKey", "expected a PEM public key or certificate, or a public JWK");
  let key: KeyObject;
  try {
    if (typeof publicKey === "string" && publicKey.includes("-----BEGIN")) {
      if (publicKey.includes("PRIVATE KEY")) throw problem();
      key = publicKey.includes("BEGIN CERTIFICATE") ? new X509Certificate(publicKey).publicKey : createPublicKey(publicKey);
    } else {
      const jwk = typeof publicKey === "string" ? (JSON.parse(publicKey) as JWK) : publicKey;
      if (typeof jwk !== "object" || jwk === null || "d" in jwk || jwk.kty === "oct") throw problem();
      key = createPublicKey({ key: jwk as import("node:crypto").JsonWebKey, format: "jwk" });
    }
  } catch {
    throw problem();
  }
  const type = key.asymmetricKeyType;
  const family =
    type === "rsa"
      ? RSA
      : type === "rsa-pss"
        ? RSA.filter((alg) => alg.startsWith("PS"))
        : type === "ec"
          ? (CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""] ?? [])
          : type === "ed25519"
            ? OKP
            : [];
  if (family.length === 0) throw problem();
  return { key, family };
}

/**
 * A JWT verifier on jose: signature (secret, public key or JWKS), `alg` allow-list (never
 * `none`; never an HS algorithm against a public key), `iss`, `aud`, `exp`, `nbf`, clock
 * tolerance. Verified tokens are cached (bounded by their expiry) so a hot token costs one
 * map lookup instead of a signature check.
 *
 * @example
 * const verifier = createJwtVerifier("jwt", { jwksUrl: "https://id.example.com/jwks.json", issuer: "https://id.example.com/", audience: "api" });
 * const claims = await verifier.verify(token);
 */
export function createJwtVerifier(provider: string, options: JwtVerifierOptions): JwtVerifier {
  const sources = [options.secret, options.publicKey, options.jwksUrl].filter((source) => source !== undefined);
  // No key source but one issuer (or a discovery URL): the key set comes from the issuer's OpenID configuration.
  const discoveryIssuer = typeof options.issuer === "string" ? options.issuer : undefined;
  const discovering = sources.length === 0 && (discoveryIssuer !== undefined || options.discoveryUrl !== undefined);
  if (discovering && discoveryIssuer === undefined)
    throw settingsProblem(provider, "auth.issuer", "discovery needs the one issuer its document must name");
  if (sources.length !== 1 && !discovering)
    throw settingsProblem(provider, "auth", "give exactly one of secret, publicKey, jwksUrl (or an issuer to discover the key set from)");
  if (options.secret !== undefined && Buffer.byteLength(options.secret) < 32) {
    throw settingsProblem(provider, "auth.secret", "must be at least 32 bytes (shorter HMAC secrets can be brute-forced)");
  }
  const algorithmsFor = (family: string[]) => {
    const allowed = options.algorithms ?? family;
    // An HS algorithm against a public key would let anyone sign with the (public) key as the secret.
    if (options.secret === undefined && allowed.some((alg) => HMAC.includes(alg)))
      throw settingsProblem(provider, "auth.algorithms", "HS* algorithms need a secret, not a public key");
    if (options.secret !== undefined && allowed.some((alg) => !HMAC.includes(alg)))
      throw settingsProblem(provider, "auth.algorithms", "a secret only verifies HS256, HS384 or HS512");
    return allowed;
  };

  type Keys = { key: KeyObject | Uint8Array | JWTVerifyGetKey; algorithms: string[] };
  let host = options.jwksUrl === undefined ? undefined : new URL(options.jwksUrl).host;
  let remote: ReturnType<typeof createRemoteJWKSet> | undefined;
  const remoteKeys = (url: string): Keys => {
    host = new URL(url).host;
    remote = createRemoteJWKSet(new URL(url), {
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: options.jwksTimeoutMs ?? 5000,
      ...(options.jwksHeaders ? { headers: options.jwksHeaders } : {}),
      ...(options.onReachability ? { [customFetch]: observedFetch(options.onReachability, host) } : {}),
    });
    return { key: remote, algorithms: algorithmsFor(ASYMMETRIC_ALGORITHMS) };
  };
  let keys: () => Promise<Keys>;
  if (discovering) {
    algorithmsFor(ASYMMETRIC_ALGORITHMS); // a bad `algorithms` is a startup error here too
    let pending: Promise<Keys> | undefined;
    // Discovered once; a failed discovery (the identity provider down) is retried by the next request.
    keys = () =>
      (pending ??= discoverJwksUrl(provider, {
        issuer: discoveryIssuer as string,
        discoveryUrl: options.discoveryUrl,
        timeoutMs: options.jwksTimeoutMs,
        onReachability: options.onReachability,
        logger: options.logger,
      }).then(remoteKeys, (error: unknown) => {
        pending = undefined;
        throw error;
      }));
  } else {
    let ready: Keys;
    if (options.jwksUrl !== undefined) ready = remoteKeys(options.jwksUrl);
    else if (options.secret !== undefined) ready = { key: new TextEncoder().encode(options.secret), algorithms: algorithmsFor(HMAC) };
    else {
      // Imported now: a bad key is a startup error, not a 401 per request.
      const { key, family } = importPublicKey(provider, options.publicKey as string | JWK);
      ready = { key, algorithms: algorithmsFor(family) };
    }
    const resolved = Promise.resolve(ready);
    keys = () => resolved;
  }

  const cache = new VerifiedTokenCache(options.verifiedCacheTtlMs ?? 60_000, options.verifiedCacheSize ?? 10_000);
  const toleranceSec = options.clockToleranceSec ?? 5;
  const maxLength = options.maxTokenLength ?? 16_384;

  return {
    peek: (token) => (token.length > maxLength ? undefined : cache.get(token, toleranceSec)),
    async verify(token) {
      // Length first: the cache hashes its key, and an oversized token is never cached anyway.
      const cached = token.length > maxLength ? undefined : cache.get(token, toleranceSec);
      if (cached) return cached;
      if (token.length > maxLength || !JWT_SHAPE.test(token))
        throw new InvalidTokenError(provider, "Malformed token", { details: { reason: "malformed" } });
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        throw new InvalidTokenError(provider, "Malformed token", { details: { reason: "malformed" } });
      }
      if (typeof header.alg !== "string" || header.alg.toLowerCase() === "none") {
        throw new InvalidTokenError(provider, "Unsigned tokens (alg: none) are refused", { details: { reason: "algorithm" } });
      }
      const { key, algorithms } = await keys();
      try {
        const verifyOptions = {
          algorithms,
          clockTolerance: toleranceSec,
          requiredClaims: options.requiredClaims ?? ["exp"],
          ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
          ...(options.audience === undefined ? {} : { audience: options.audience }),
          ...(options.maxTokenAgeSec === undefined ? {} : { maxTokenAge: options.maxTokenAgeSec }),
          ...(options.typ === undefined ? {} : { typ: options.typ }),
        };
        const { payload } =
          typeof key === "function" ? await jwtVerify(token, key, verifyOptions) : await jwtVerify(token, key, verifyOptions);
        cache.set(token, payload);
        return payload;
      } catch (error) {
        throw toAuthError(error, provider, host);
      }
    },
    async reload() {
      await keys();
      if (remote) {
        try {
          await remote.reload();
        } catch (error) {
          throw toAuthError(error, provider, host);
        }
      }
    },
  };
}
