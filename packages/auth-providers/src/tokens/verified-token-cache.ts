import type { JWTPayload } from "jose";

/**
 * Tokens whose signature and claims were already checked, with their claims, for at most
 * `ttlMs` and never past their own `exp` (plus tolerance). Bounded: the oldest entry goes
 * first (a Map iterates in insertion order). A token is only ever found by its exact text.
 */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, { claims: JWTPayload; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(token: string, toleranceSec: number): JWTPayload | undefined {
    if (this.ttlMs <= 0) return undefined;
    const entry = this.#entries.get(token);
    if (!entry) return undefined;
    const now = Date.now();
    const expired = entry.claims.exp !== undefined && now >= (entry.claims.exp + toleranceSec) * 1000;
    if (now >= entry.until || expired) {
      this.#entries.delete(token);
      return undefined;
    }
    return entry.claims;
  }

  set(token: string, claims: JWTPayload): void {
    if (this.ttlMs <= 0) return;
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, { claims, until: Date.now() + this.ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}
