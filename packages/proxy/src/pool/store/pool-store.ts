import type { TokenUsage } from "../../prices.js";

/** Rate-limit headers of an account's last response, `anthropic-ratelimit-` stripped: `{"unified-5h": {utilization: "0.4", reset: "…"}}`. */
export type QuotaLimits = Record<string, Record<string, string>>;

export interface Quota {
  /** Epoch ms of the response the headers came from. */
  updatedAt: number;
  limits: QuotaLimits;
}

/** What every process of a pool agrees on about one account. */
export interface AccountState {
  /** Epoch ms; the account is cooling while this is in the future (0: not cooling). */
  cooldownUntil: number;
  cooldownReason?: string;
  /** Set when upstream refused the account's credential; it is never chosen again. */
  disabledReason?: string;
  quota?: Quota;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** An account's figures for one model, as `/accounts` shows them (cache writes of both TTLs in `cacheCreationTokens`). */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** Dollars. */
  cost: number;
}

export interface UsageRow {
  accountId: string;
  model: string;
  totals: UsageTotals;
}

/**
 * Where a pool keeps what must be shared: in memory for one process, in Redis for several
 * (a cooldown one process sees is honoured by all; a token refresh happens once).
 */
export interface PoolStore {
  readStates(accountIds: readonly string[]): Promise<Record<string, AccountState>>;
  /** Extend-only: an earlier `until` than the stored one leaves it. Resolves with the stored value. */
  extendCooldown(accountId: string, until: number, reason: string): Promise<number>;
  disable(accountId: string, reason: string): Promise<void>;
  /** Back in rotation: clears the disabled mark (an operator's decision, e.g. from the console). */
  enable(accountId: string): Promise<void>;
  saveQuota(accountId: string, quota: Quota): Promise<void>;
  addUsage(accountId: string, model: string, usage: TokenUsage, cost: number): Promise<void>;
  readUsage(): Promise<UsageRow[]>;
  readTokens(accountId: string): Promise<OAuthTokens | undefined>;
  saveTokens(accountId: string, tokens: OAuthTokens): Promise<void>;
  /** Takes a lock for `ttlMs`; resolves with its release, or undefined when another holder has it. */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  readSticky(sessionKey: string): Promise<string | undefined>;
  saveSticky(sessionKey: string, accountId: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A store that answers in the same turn (in memory): the pool reads and writes it directly on
 * the request path, without a promise per call nor the outage guard (it cannot be unreachable).
 */
export interface ImmediatePoolStore extends PoolStore {
  /** False for a store that must be called through its async methods after all (a subclass overriding them). */
  readonly immediate: boolean;
  /** The store's own states, to read and never change (unlike `readStates`, which hands out copies). */
  readStatesNow(accountIds: readonly string[]): Record<string, Readonly<AccountState>>;
  readStickyNow(sessionKey: string): string | undefined;
  saveStickyNow(sessionKey: string, accountId: string, ttlMs: number): void;
  saveQuotaNow(accountId: string, quota: Quota): void;
  addUsageNow(accountId: string, model: string, usage: TokenUsage, cost: number): void;
}

/** True for a store whose answers need no await (see `ImmediatePoolStore`). */
export function isImmediateStore(store: PoolStore): store is ImmediatePoolStore {
  return (store as Partial<ImmediatePoolStore>).immediate === true;
}

export function emptyTotals(): UsageTotals {
  return { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, cost: 0 };
}
