import { createHash } from "node:crypto";

/**
 * Results keyed by a token's SHA-256 (the token itself is not kept), each until its own
 * deadline, bounded in size (the oldest entry goes first).
 */
export class ResultCache<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  static keyOf(token: string): string {
    return createHash("sha256").update(token).digest("base64url");
  }

  get(token: string): T | undefined {
    const key = ResultCache.keyOf(token);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Forgets a token (revoked here: refused at once, not when its cached result expires). */
  delete(token: string): void {
    this.#entries.delete(ResultCache.keyOf(token));
  }

  set(token: string, value: T, until: number): void {
    if (until <= Date.now()) return;
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(ResultCache.keyOf(token), { value, until });
  }
}
