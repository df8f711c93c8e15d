import { createHash, createHmac, randomBytes } from "node:crypto";
import { digestsEqual as digestsEqualBytes, parseBearer } from "@conduit-ai/server-core/internal";

/**
 * A new key's secret: the prefix and 256 random bits, base64url.
 *
 * @example
 * newKeySecret("sk-conduit-"); // "sk-conduit-3q2+…" (43 characters after the prefix)
 */
export function newKeySecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * The digest a key is stored and looked up by: HMAC-SHA-256 with the server's key secret when
 * one is set, SHA-256 otherwise — deterministic, so processes sharing a store agree.
 *
 * @example
 * const digest = keyDigest(secret, process.env.CONDUIT_KEYS_SECRET);
 */
export function keyDigest(secret: string, hmacSecret: string | undefined): string {
  return (hmacSecret ? createHmac("sha256", hmacSecret) : createHash("sha256")).update(secret).digest("hex");
}

/** Constant-time equality of two hex digests of the same length (a length mismatch is simply false). */
export function digestsEqual(left: string, right: string): boolean {
  return digestsEqualBytes(Buffer.from(left, "hex"), Buffer.from(right, "hex"));
}

/** The credential a request presents: `x-api-key`, else `Authorization: Bearer`. */
export function credentialOf(header: (name: string) => string | undefined): string | undefined {
  const apiKey = header("x-api-key");
  if (apiKey) return apiKey.trim();
  return parseBearer(header("authorization"));
}
