import { BoundedCache, secretDigest } from "@conduit-ai/server-core/internal";

/**
 * Results keyed by a token's SHA-256 (the token itself is never kept), each until its own
 * deadline, bounded in size (the least recently used entry goes first).
 */
export class ResultCache<T> {
  readonly #entries: BoundedCache<T>;

  constructor(maxEntries = 10_000) {
    this.#entries = new BoundedCache({ maxEntries });
  }

  get(token: string): T | undefined {
    return this.#entries.get(secretDigest(token));
  }

  /** Forgets a token (revoked here: refused at once, not when its cached result expires). */
  delete(token: string): void {
    this.#entries.delete(secretDigest(token));
  }

  /** Keeps `value` until `until` (epoch ms); a deadline already past keeps nothing. */
  set(token: string, value: T, until: number): void {
    this.#entries.set(secretDigest(token), value, { expiresAt: until });
  }

  /** The keys held (token digests), for tests. */
  keys(): IterableIterator<string> {
    return this.#entries.keys();
  }
}
