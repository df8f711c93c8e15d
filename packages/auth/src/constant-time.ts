import { createHash, timingSafeEqual } from "node:crypto";

/** SHA-256 of a secret: fixed length, so `timingSafeEqual` applies whatever the input length. */
export function digestSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/**
 * Compares two secrets in time independent of where they differ (and of their lengths,
 * since both sides are hashed first).
 *
 * @example
 * secretsEqual(presentedPassword, storedPassword);
 */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(digestSecret(presented), digestSecret(expected));
}
