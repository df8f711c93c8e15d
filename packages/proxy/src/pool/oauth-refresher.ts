import type { OAuthAccountConfig } from "../config.js";
import type { OAuthTokens, PoolStore } from "./store/pool-store.js";

/** Refresh this long before expiry so no request leaves with a token about to lapse. */
const REFRESH_SKEW_MS = 60_000;
const LOCK_TTL_MS = 30_000;
const WAIT_POLL_MS = 50;

/** The token endpoint refused the refresh token (the account needs a new login). */
export class RefreshRejectedError extends Error {
  constructor(readonly status: number) {
    super(`token endpoint refused the refresh (HTTP ${status})`);
  }
}

/** How long an account rests after a token refresh failed for another reason than a refusal. */
const REFRESH_FAILURE_COOLDOWN_MS = 30_000;

/** What retiring an account needs of the pool (the pool itself; named here so this file needs nothing of it). */
export interface AccountRetirement {
  disable(accountId: string, reason: string): Promise<void>;
  cooldown(accountId: string, until: number, reason: string): Promise<unknown>;
}

/**
 * Takes an account out of rotation after its token refresh failed: disabled when the token
 * endpoint refused the refresh token (it needs a new login), cooled down briefly otherwise.
 */
export async function retireAfterRefreshFailure(pool: AccountRetirement, accountId: string, error: unknown): Promise<void> {
  if (error instanceof RefreshRejectedError) await pool.disable(accountId, `OAuth refresh refused (HTTP ${error.status})`);
  else await pool.cooldown(accountId, Date.now() + REFRESH_FAILURE_COOLDOWN_MS, "OAuth refresh failed");
}

/**
 * OAuth access tokens of a pool's accounts, refreshed before expiry and on demand after a
 * 401. Single-flight twice over: concurrent callers in this process share one promise, and
 * processes sharing a store take a lock; the others wait for the winner's new token.
 */
export class OAuthRefresher {
  private readonly inFlight = new Map<string, Promise<OAuthTokens>>();

  constructor(
    private readonly store: PoolStore,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async current(account: OAuthAccountConfig): Promise<OAuthTokens> {
    return (
      (await this.store.readTokens(account.id)) ?? {
        accessToken: account.accessToken,
        refreshToken: account.refreshToken,
        expiresAt: account.expiresAt,
      }
    );
  }

  /**
   * A usable access token. `rejected` is a token upstream just answered 401 to: refresh
   * unless someone already replaced it.
   */
  async accessToken(account: OAuthAccountConfig, rejected?: string): Promise<string> {
    const tokens = await this.current(account);
    const stale = rejected !== undefined ? tokens.accessToken === rejected : tokens.expiresAt - Date.now() < REFRESH_SKEW_MS;
    if (!stale) return tokens.accessToken;
    let pending = this.inFlight.get(account.id);
    if (!pending) {
      pending = this.refreshShared(account, tokens).finally(() => this.inFlight.delete(account.id));
      this.inFlight.set(account.id, pending);
    }
    return (await pending).accessToken;
  }

  private async refreshShared(account: OAuthAccountConfig, seen: OAuthTokens): Promise<OAuthTokens> {
    const deadline = Date.now() + LOCK_TTL_MS;
    while (Date.now() < deadline) {
      const release = await this.store.tryLock(`refresh:${account.id}`, LOCK_TTL_MS);
      if (release) {
        try {
          const latest = await this.current(account);
          // Another process refreshed between our read and the lock.
          if (latest.accessToken !== seen.accessToken) return latest;
          const fresh = await this.requestRefresh(account, latest);
          await this.store.saveTokens(account.id, fresh);
          return fresh;
        } finally {
          await release();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
      const latest = await this.current(account);
      if (latest.accessToken !== seen.accessToken) return latest;
    }
    throw new Error("timed out waiting for another process's token refresh");
  }

  private async requestRefresh(account: OAuthAccountConfig, tokens: OAuthTokens): Promise<OAuthTokens> {
    const body: Record<string, string> = { grant_type: "refresh_token", refresh_token: tokens.refreshToken };
    if (account.clientId) body.client_id = account.clientId;
    const response = await this.fetchImpl(account.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(LOCK_TTL_MS - 5_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new RefreshRejectedError(response.status);
    }
    const answer = (await response.json()) as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
    if (typeof answer.access_token !== "string" || answer.access_token === "")
      throw new Error("token endpoint answered without access_token");
    return {
      accessToken: answer.access_token,
      refreshToken: typeof answer.refresh_token === "string" && answer.refresh_token !== "" ? answer.refresh_token : tokens.refreshToken,
      expiresAt: Date.now() + (typeof answer.expires_in === "number" ? answer.expires_in * 1000 : 3600_000),
    };
  }
}
