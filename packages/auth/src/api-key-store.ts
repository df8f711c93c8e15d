import { digestsEqual } from "@conduit-ai/server-core/internal";
import type { AuthResult, AuthenticatedUser } from "./auth-types.js";
import { toAuthenticatedUser } from "./authenticated-user.js";
import { digestSecret } from "./constant-time.js";

interface StoredKey {
  digest: Buffer;
  user: AuthenticatedUser;
}

/**
 * In-memory map from secret (API key, static bearer token) to user. Only SHA-256
 * digests are kept, and a lookup compares the presented digest with every stored one
 * using `digestsEqual`, without stopping at the first match, so response time says
 * nothing about which key (or how much of it) was right.
 *
 * @example
 * const store = new ApiKeyStore();
 * store.addKey(process.env.ADMIN_KEY!, { id: "admin", roles: ["admin"] });
 * store.validate("wrong"); // null
 * store.size; // 1
 */
export class ApiKeyStore {
  private entries: StoredKey[] = [];

  /** Adds a key (replacing the user of an existing identical key). */
  addKey(key: string, user: AuthResult | AuthenticatedUser): this {
    if (typeof key !== "string" || key === "") throw new TypeError("ApiKeyStore.addKey: the key must be a non-empty string");
    const normalized = toAuthenticatedUser(user);
    if (!normalized) throw new TypeError("ApiKeyStore.addKey: the user needs a non-empty string `id`");
    const digest = digestSecret(key);
    this.entries = this.entries.filter((entry) => !digestsEqual(entry.digest, digest));
    this.entries.push({ digest, user: normalized });
    return this;
  }

  /** The user of `key`, or null. A fresh copy, so handlers cannot alter the stored user. */
  validate(key: string): AuthenticatedUser | null {
    if (typeof key !== "string" || key === "") return null;
    const digest = digestSecret(key);
    let found: AuthenticatedUser | null = null;
    for (const entry of this.entries) {
      if (digestsEqual(entry.digest, digest)) found = entry.user;
    }
    if (!found) return null;
    // The arrays are copied and only metadata (of any depth) is cloned deeply: cheaper per request than cloning the whole user.
    const copy: AuthenticatedUser = { ...found, roles: [...found.roles], permissions: [...found.permissions] };
    if (found.metadata !== undefined) copy.metadata = structuredClone(found.metadata);
    return copy;
  }

  /** True when a key was removed. */
  removeKey(key: string): boolean {
    const digest = digestSecret(key);
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => !digestsEqual(entry.digest, digest));
    return this.entries.length !== before;
  }

  clear(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }
}
