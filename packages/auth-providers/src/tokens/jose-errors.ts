import { errors } from "jose";
import {
  type AuthProviderError,
  AuthProviderUnavailableError,
  InvalidTokenError,
  ProviderAPIError,
  TokenExpiredError,
} from "../errors/auth-errors.js";

/**
 * True for a request that never got an answer: undici's `fetch failed` (a `TypeError` whose
 * `cause` is the socket error), an abort or a timeout. Not a key of the wrong type, which jose
 * also reports as a `TypeError`.
 */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "AbortError" || error.name === "TimeoutError") return true;
  if (!(error instanceof TypeError)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return error.message === "fetch failed" || typeof cause?.code === "string";
}

const CLAIM_MESSAGES: Record<string, string> = {
  iss: "Token issuer is not accepted",
  aud: "Token audience is not accepted",
  nbf: "Token is not valid yet",
  iat: "Token issue time is not acceptable",
  exp: "Token has no expiry",
  sub: "Token has no subject",
  typ: "Token type is not accepted",
};

/**
 * Turns a jose failure into the auth error the client may see: expired → `TOKEN_EXPIRED`,
 * anything wrong with the token → `AUTH_INVALID` with a message naming what (never the
 * token); the key set unreachable, slow or answering an error → `AUTH_PROVIDER_UNAVAILABLE`
 * (503, retryable: the identity provider is down, the token may be fine); a key set that is
 * not a JWKS → `ProviderAPIError`.
 */
export function toAuthError(error: unknown, provider: string, host?: string): AuthProviderError {
  // First: a refused connection is a `TypeError` too, and must not read as a wrong algorithm.
  if (isNetworkFailure(error)) return new AuthProviderUnavailableError(provider, { host, cause: error });
  if (error instanceof errors.JWTExpired) return new TokenExpiredError(provider, "Token expired", { details: { reason: "expired" } });
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    const message =
      error.reason === "missing"
        ? `Token is missing the "${claim}" claim`
        : (CLAIM_MESSAGES[claim] ?? `Token claim "${claim}" is not accepted`);
    return new InvalidTokenError(provider, message, { details: { reason: "claim", claim } });
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new InvalidTokenError(provider, "Token algorithm is not accepted", { details: { reason: "algorithm" } });
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new InvalidTokenError(provider, "Token signature is invalid", { details: { reason: "signature" } });
  if (error instanceof errors.JWKSNoMatchingKey)
    return new InvalidTokenError(provider, "No signing key matches the token", { details: { reason: "key" } });
  if (error instanceof errors.JWKSMultipleMatchingKeys)
    return new InvalidTokenError(provider, "Token signing key is ambiguous", { details: { reason: "key" } });
  if (error instanceof errors.JWKSTimeout) return new AuthProviderUnavailableError(provider, { host, cause: error });
  if (error instanceof errors.JWKSInvalid) return new ProviderAPIError(provider, "Key set is not a valid JWKS", { cause: error });
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return new InvalidTokenError(provider, "Malformed token", { details: { reason: "malformed" } });
  if (error instanceof errors.JOSENotSupported)
    return new InvalidTokenError(provider, "Token algorithm is not supported", { details: { reason: "algorithm" } });
  // "Expected 200 OK from the JSON Web Key Set HTTP response": the key set endpoint answered an error.
  if (error instanceof errors.JOSEError && /fetch|response|status/i.test(error.message))
    return new AuthProviderUnavailableError(provider, { host, cause: error });
  // A key of the wrong type for the token's algorithm (HS256 against an RSA key) is a TypeError in jose.
  if (error instanceof TypeError)
    return new InvalidTokenError(provider, "Token algorithm does not match the key", { details: { reason: "algorithm" } });
  return new InvalidTokenError(provider, "Invalid token", { details: { reason: "invalid" } });
}
