import * as crypto from "node:crypto";

/** One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per call, about half the cost of `createHash`. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: "base64url" | "buffer") => string | Buffer }).hash;

/**
 * The SHA-256 of a secret (token, API key, credential) as base64url: what a cache, a map or a
 * log keys by instead of the secret, so a heap dump or a key listing never holds one.
 *
 * @example
 * cache.set(secretDigest(token), claims); // never cache.set(token, …)
 */
export function secretDigest(secret: string): string {
  return oneShotHash
    ? (oneShotHash("sha256", secret, "base64url") as string)
    : crypto.createHash("sha256").update(secret, "utf8").digest("base64url");
}

/**
 * The SHA-256 of a secret as 32 bytes: fixed length, so `digestsEqual` applies whatever the
 * secret's length. Stored credentials are kept as these, never as the secret.
 *
 * @example
 * const stored = secretDigestBytes(configuredKey);
 */
export function secretDigestBytes(secret: string): Buffer {
  return oneShotHash ? (oneShotHash("sha256", secret, "buffer") as Buffer) : crypto.createHash("sha256").update(secret, "utf8").digest();
}

/**
 * Constant-time equality of two digests; digests of different lengths (or empty ones) are
 * simply unequal, without comparing.
 *
 * @example
 * digestsEqual(stored, secretDigestBytes(presented));
 */
export function digestsEqual(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.length > 0 && crypto.timingSafeEqual(left, right);
}

/**
 * Compares two secrets in time independent of where they differ and of their lengths (both
 * sides are hashed first).
 *
 * @example
 * constantTimeEquals(presentedPassword, configuredPassword);
 */
export function constantTimeEquals(presented: string, expected: string): boolean {
  return crypto.timingSafeEqual(secretDigestBytes(presented), secretDigestBytes(expected));
}
