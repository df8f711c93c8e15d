import type { TokenUsage } from "../../prices.js";
import {
  type AccountState,
  type ImmediatePoolStore,
  type OAuthTokens,
  type Quota,
  type UsageRow,
  type UsageTotals,
  emptyTotals,
} from "./pool-store.js";

const USAGE_KEY_SEPARATOR = "\u0000";

/** The pool's state in this process only. Sticky sessions expire lazily and are bounded. */
export class MemoryPoolStore implements ImmediatePoolStore {
  /**
   * Only this class answers in the same turn: a subclass may override the async methods (to
   * fail, to log), so it is called through them, guarded like any other store.
   */
  readonly immediate: boolean;
  private readonly states = new Map<string, AccountState>();
  private readonly usage = new Map<string, UsageTotals>();
  private readonly tokens = new Map<string, OAuthTokens>();
  private readonly locks = new Map<string, number>();
  private readonly sticky = new Map<string, { accountId: string; expiresAt: number }>();

  constructor(private readonly maxSessions = 100_000) {
    this.immediate = new.target === MemoryPoolStore;
  }

  private state(accountId: string): AccountState {
    let state = this.states.get(accountId);
    if (!state) {
      state = { cooldownUntil: 0 };
      this.states.set(accountId, state);
    }
    return state;
  }

  async readStates(accountIds: readonly string[]): Promise<Record<string, AccountState>> {
    const result: Record<string, AccountState> = {};
    for (const id of accountIds) {
      const state = this.state(id);
      // The quota is nested: a reader's change must not reach the store (Redis hands out a parsed copy too).
      result[id] = state.quota ? { ...state, quota: copyQuota(state.quota) } : { ...state };
    }
    return result;
  }

  /** The states themselves, no copies: the pool's selection reads them on every request and changes nothing. */
  readStatesNow(accountIds: readonly string[]): Record<string, Readonly<AccountState>> {
    const result: Record<string, AccountState> = {};
    for (const id of accountIds) result[id] = this.state(id);
    return result;
  }

  async extendCooldown(accountId: string, until: number, reason: string): Promise<number> {
    const state = this.state(accountId);
    // Whole epoch milliseconds, rounded up as the Redis store stores them: a cooldown never ends early.
    const wanted = Math.ceil(until);
    if (wanted > state.cooldownUntil) {
      state.cooldownUntil = wanted;
      state.cooldownReason = reason;
    }
    return state.cooldownUntil;
  }

  async disable(accountId: string, reason: string): Promise<void> {
    this.state(accountId).disabledReason = reason;
  }

  async enable(accountId: string): Promise<void> {
    delete this.state(accountId).disabledReason;
  }

  async saveQuota(accountId: string, quota: Quota): Promise<void> {
    this.saveQuotaNow(accountId, quota);
  }

  saveQuotaNow(accountId: string, quota: Quota): void {
    this.state(accountId).quota = copyQuota(quota);
  }

  async addUsage(accountId: string, model: string, usage: TokenUsage, cost: number): Promise<void> {
    this.addUsageNow(accountId, model, usage, cost);
  }

  addUsageNow(accountId: string, model: string, usage: TokenUsage, cost: number): void {
    const key = `${accountId}${USAGE_KEY_SEPARATOR}${model}`;
    const totals = this.usage.get(key) ?? emptyTotals();
    totals.requests += 1;
    totals.inputTokens += usage.input;
    totals.outputTokens += usage.output;
    totals.cacheReadTokens += usage.cacheRead;
    totals.cacheCreationTokens += usage.cacheWrite5m + usage.cacheWrite1h;
    totals.cost += cost;
    this.usage.set(key, totals);
  }

  async readUsage(): Promise<UsageRow[]> {
    return [...this.usage].map(([key, totals]) => {
      const [accountId = "", model = ""] = key.split(USAGE_KEY_SEPARATOR);
      return { accountId, model, totals: { ...totals } };
    });
  }

  async readTokens(accountId: string): Promise<OAuthTokens | undefined> {
    const tokens = this.tokens.get(accountId);
    return tokens ? { ...tokens } : undefined;
  }

  async saveTokens(accountId: string, tokens: OAuthTokens): Promise<void> {
    this.tokens.set(accountId, { ...tokens });
  }

  async tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined> {
    const now = Date.now();
    const held = this.locks.get(name);
    if (held !== undefined && held > now) return undefined;
    const expiresAt = now + ttlMs;
    this.locks.set(name, expiresAt);
    return async () => {
      if (this.locks.get(name) === expiresAt) this.locks.delete(name);
    };
  }

  async readSticky(sessionKey: string): Promise<string | undefined> {
    return this.readStickyNow(sessionKey);
  }

  readStickyNow(sessionKey: string): string | undefined {
    const entry = this.sticky.get(sessionKey);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.sticky.delete(sessionKey);
      return undefined;
    }
    return entry.accountId;
  }

  async saveSticky(sessionKey: string, accountId: string, ttlMs: number): Promise<void> {
    this.saveStickyNow(sessionKey, accountId, ttlMs);
  }

  saveStickyNow(sessionKey: string, accountId: string, ttlMs: number): void {
    this.sticky.delete(sessionKey);
    // Oldest first in a Map: dropping the first entry bounds memory under many sessions.
    if (this.sticky.size >= this.maxSessions) {
      const oldest = this.sticky.keys().next().value;
      if (oldest !== undefined) this.sticky.delete(oldest);
    }
    this.sticky.set(sessionKey, { accountId, expiresAt: Date.now() + ttlMs });
  }

  async close(): Promise<void> {}
}

/** A quota's own copy, two levels deep (its limits hold flat string records). */
function copyQuota(quota: Quota): Quota {
  const limits: Quota["limits"] = {};
  for (const [name, fields] of Object.entries(quota.limits)) limits[name] = { ...fields };
  return { updatedAt: quota.updatedAt, limits };
}
