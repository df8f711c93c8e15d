import { createHash, timingSafeEqual } from "node:crypto";

/** The shortest admin key accepted (issue 21's contract: ≥ 32 characters). */
export const MIN_ADMIN_KEY_LENGTH = 32;

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * A constant-time check of a credential against configured admin keys (the `admin.keys` config
 * key). Keys are kept only as SHA-256 digests; every digest is compared, so the time taken
 * says nothing about which key, or how much of one, matched. Throws when a key is shorter than
 * `MIN_ADMIN_KEY_LENGTH`. The governance package's own check can replace it (`verifyAdmin`).
 *
 * @example
 * const verifyAdmin = createAdminKeyCheck(["k".repeat(40)]);
 * verifyAdmin("k".repeat(40)); // true
 */
export function createAdminKeyCheck(keys: readonly string[]): (credential: string) => boolean {
  for (const key of keys) {
    if (typeof key !== "string" || key.length < MIN_ADMIN_KEY_LENGTH)
      throw new TypeError(`admin.keys: every key needs at least ${MIN_ADMIN_KEY_LENGTH} characters`);
  }
  const digests = keys.map(digest);
  return (credential) => {
    if (typeof credential !== "string" || credential === "") return false;
    const presented = digest(credential);
    let matched = false;
    for (const candidate of digests) matched = timingSafeEqual(candidate, presented) || matched;
    return matched;
  };
}

/** SHA-256 of a credential as hex: what a session record names instead of the credential. */
export function credentialDigest(credential: string): string {
  return digest(credential).toString("hex");
}
