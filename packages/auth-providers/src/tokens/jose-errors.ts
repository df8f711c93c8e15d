import { errors } from "jose";
import { type AuthProviderError, InvalidTokenError, ProviderAPIError, TokenExpiredError } from "../errors/auth-errors.js";

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
 * token), the key set unreachable → `ProviderAPIError` (still a refusal at the HTTP layer).
 */
export function toAuthError(error: unknown, provider: string): AuthProviderError {
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
  if (error instanceof errors.JWKSTimeout) return new ProviderAPIError(provider, "Key set request timed out", { cause: error });
  if (error instanceof errors.JWKSInvalid) return new ProviderAPIError(provider, "Key set is not a valid JWKS", { cause: error });
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return new InvalidTokenError(provider, "Malformed token", { details: { reason: "malformed" } });
  if (error instanceof errors.JOSENotSupported)
    return new InvalidTokenError(provider, "Token algorithm is not supported", { details: { reason: "algorithm" } });
  if (error instanceof errors.JOSEError && /fetch|response|status/i.test(error.message))
    return new ProviderAPIError(provider, "Key set request failed", { cause: error });
  // A key of the wrong type for the token's algorithm (HS256 against an RSA key) is a TypeError in jose.
  if (error instanceof TypeError)
    return new InvalidTokenError(provider, "Token algorithm does not match the key", { details: { reason: "algorithm" } });
  return new InvalidTokenError(provider, "Invalid token", { details: { reason: "invalid" } });
}
