import * as crypto from "node:crypto";
import { createHash, timingSafeEqual } from "node:crypto";

/** One-shot `crypto.hash` (Node ≥ 20.12): no Hash object per call, about half the cost of `createHash`. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;

/** SHA-256 of a secret: fixed length, so `timingSafeEqual` applies whatever the input length. */
export function digestSecret(secret: string): Buffer {
  return oneShotHash ? oneShotHash("sha256", secret, "buffer") : createHash("sha256").update(secret, "utf8").digest();
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
