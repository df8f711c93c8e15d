import { BoundedCache, secretDigest } from "@conduit-ai/server-core/internal";
import type { JWTPayload } from "jose";

/**
 * Tokens whose signature and claims were already checked, with their claims, for at most
 * `ttlMs` and never past their own `exp` (plus tolerance). Bounded: the least recently used
 * entry goes first. Keyed by the token's SHA-256, so the cache never holds a bearer token,
 * and a token is only ever found by its exact text.
 */
export class VerifiedTokenCache {
  readonly #entries: BoundedCache<JWTPayload>;

  constructor(
    private readonly ttlMs: number,
    maxEntries: number,
  ) {
    this.#entries = new BoundedCache({ maxEntries, ttlMs });
  }

  get(token: string, toleranceSec: number): JWTPayload | undefined {
    if (this.ttlMs <= 0) return undefined;
    const key = secretDigest(token);
    const claims = this.#entries.get(key);
    if (claims === undefined) return undefined;
    if (claims.exp !== undefined && Date.now() >= (claims.exp + toleranceSec) * 1000) {
      this.#entries.delete(key);
      return undefined;
    }
    return claims;
  }

  set(token: string, claims: JWTPayload): void {
    if (this.ttlMs <= 0) return;
    this.#entries.set(secretDigest(token), claims);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The keys held (token digests), for tests. */
  keys(): IterableIterator<string> {
    return this.#entries.keys();
  }
}
