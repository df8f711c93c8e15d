/** A bearer token and how long it lives (seconds), as an admin token endpoint hands it out. */
export interface IssuedToken {
  accessToken: string;
  expiresInSec?: number;
}

/** Renew this long before the vendor's expiry, so a token never expires in flight. */
const EARLY_RENEWAL_MS = 60_000;
/** Lifetime assumed when the vendor does not say (`expires_in` absent). */
const DEFAULT_LIFETIME_SEC = 300;

/**
 * Caches an admin API token until shortly before it expires; concurrent callers share one
 * fetch, and a failed fetch is not cached (the next call tries again).
 *
 * @example
 * const token = cachedToken(() => fetchManagementToken());
 * const header = `Bearer ${await token()}`;
 */
export function cachedToken(issue: () => Promise<IssuedToken>, now: () => number = Date.now): () => Promise<string> {
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return async () => {
    if (current && now() < current.renewAt) return current.token;
    pending ??= issue()
      .then((issued) => {
        const lifetimeMs = (issued.expiresInSec ?? DEFAULT_LIFETIME_SEC) * 1000;
        current = { token: issued.accessToken, renewAt: now() + Math.max(lifetimeMs - EARLY_RENEWAL_MS, lifetimeMs / 2) };
        return issued.accessToken;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
