import { createHash } from "node:crypto";
import type { AccountConfig, ProxyConfig } from "../config.js";
import { MAX_COOLDOWN_MS } from "./cooldown-cap.js";
import { type PriceTable, type TokenUsage, costOf, mergePrices } from "../prices.js";
import type { AccountState, ImmediatePoolStore, PoolStore, Quota, UsageTotals } from "./store/pool-store.js";
import { emptyTotals, isImmediateStore } from "./store/pool-store.js";
import { OAuthRefresher } from "./oauth-refresher.js";
import { UnknownAccountError } from "./unknown-account-error.js";

/**
 * What the pool needs of a member: the proxy's accounts and a provider's API keys both are one.
 * `vendor` groups members leased together (`anthropic`, `codex`, `provider:<name>`).
 */
export interface PoolMember {
  id: string;
  vendor: string;
  type: AccountConfig["type"];
  priority: number;
  maxInFlight: number;
}

/** One account held for one upstream attempt; `release()` exactly once. */
export interface Lease<A extends PoolMember = AccountConfig> {
  readonly account: A;
  release(): void;
}

export type Selection<A extends PoolMember = AccountConfig> =
  | { kind: "lease"; lease: Lease<A> }
  /** Every usable account is cooling; the soonest is back at `retryAt` (epoch ms). */
  | { kind: "cooling"; retryAt: number }
  /** No account can serve (none configured, all disabled or already tried). */
  | { kind: "none" };

export interface AcquireOptions {
  vendor: string;
  /** Sticky-session key (a header or the request's `metadata.user_id`). */
  sessionKey?: string | undefined;
  /** Accounts this request already tried. */
  exclude?: ReadonlySet<string>;
  signal?: AbortSignal;
}

export type AccountStatus = "active" | "cooling" | "disabled";

/** One account as `/accounts` shows it: never a secret. */
export interface AccountRow {
  id: string;
  vendor: string;
  type: AccountConfig["type"];
  priority: number;
  status: AccountStatus;
  cooldownUntil: string | null;
  cooldownReason: string | null;
  disabledReason: string | null;
  inFlight: number;
  quota: Quota | null;
  usage: { totals: UsageTotals; byModel: Record<string, UsageTotals> };
}

export interface AccountPoolOptions<A extends PoolMember = AccountConfig> {
  config: Pick<ProxyConfig, "strategy" | "prices" | "stickyTtlMs"> & { accounts: readonly A[] };
  store: PoolStore;
  fetch?: typeof fetch;
}

/**
 * The accounts behind the proxy and how requests are spread over them: `fill-first` (lowest
 * `priority` first) or `round-robin`, sticky sessions, a per-account in-flight cap, shared
 * cooldowns and disabled marks, quota and usage. Vendor-generic: the Messages passthrough and
 * the codex engine both lease from it.
 */
export class AccountPool<A extends PoolMember = AccountConfig> {
  readonly store: PoolStore;
  /** The store again when it answers in the same turn: the request path then calls it directly. */
  private readonly immediate: ImmediatePoolStore | undefined;
  readonly oauth: OAuthRefresher;
  private readonly accounts: readonly A[];
  private readonly inFlight = new Map<string, number>();
  private readonly slotWaiters = new Set<() => void>();
  private readonly prices: PriceTable;
  private roundRobinNext = 0;

  constructor(private readonly options: AccountPoolOptions<A>) {
    this.store = options.store;
    this.immediate = isImmediateStore(options.store) ? options.store : undefined;
    this.oauth = new OAuthRefresher(options.store, options.fetch);
    // Stable sort: equal priorities keep config order.
    this.accounts = [...options.config.accounts].sort((a, b) => a.priority - b.priority);
    this.prices = mergePrices(options.config.prices);
  }

  list(vendor?: string): readonly A[] {
    return vendor ? this.accounts.filter((account) => account.vendor === vendor) : this.accounts;
  }

  /**
   * An account for one attempt. Waits while every healthy account is at its in-flight cap;
   * answers `cooling` / `none` at once when nothing healthy is left.
   */
  acquire(options: AcquireOptions): Promise<Selection<A>> {
    const stickyKey = options.sessionKey ? createHash("sha256").update(options.sessionKey).digest("base64url") : undefined;
    const immediate = this.immediate;
    if (immediate) {
      // In memory: chosen in this turn; only a wait for a free slot needs the loop below.
      const accounts = this.list(options.vendor);
      const stuckId = stickyKey ? immediate.readStickyNow(stickyKey) : undefined;
      const selection = this.select(accounts, immediate.readStatesNow(accounts.map((account) => account.id)), stuckId, options.exclude);
      if (selection !== undefined) {
        if (selection.kind === "lease" && stickyKey) immediate.saveStickyNow(stickyKey, selection.lease.account.id, this.stickyTtlMs);
        return Promise.resolve(selection);
      }
    }
    return this.acquireWaiting(options, stickyKey);
  }

  private async acquireWaiting(options: AcquireOptions, stickyKey: string | undefined): Promise<Selection<A>> {
    for (;;) {
      const accounts = this.list(options.vendor);
      const [states, stuckId] = await Promise.all([
        this.store.readStates(accounts.map((account) => account.id)),
        stickyKey ? this.store.readSticky(stickyKey) : undefined,
      ]);
      const selection = this.select(accounts, states, stuckId, options.exclude);
      if (selection !== undefined) {
        // Saved on every use: the session's TTL runs from its last request.
        if (selection.kind === "lease" && stickyKey) await this.store.saveSticky(stickyKey, selection.lease.account.id, this.stickyTtlMs);
        return selection;
      }
      await this.waitForSlot(options.signal);
    }
  }

  private get stickyTtlMs(): number {
    return this.options.config.stickyTtlMs;
  }

  /** The selection from the accounts' states (a lease is taken), or undefined when every healthy one is at its cap. */
  private select(
    accounts: readonly A[],
    states: Record<string, Readonly<AccountState>>,
    stuckId: string | undefined,
    exclude: ReadonlySet<string> | undefined,
  ): Selection<A> | undefined {
    const now = Date.now();
    const healthy = accounts.filter((account) => !exclude?.has(account.id) && isHealthy(states[account.id], now));
    if (healthy.length === 0) {
      // Accounts this request already tried count too: they may be the ones cooling.
      const cooling = accounts
        .map((account) => states[account.id])
        .filter((state) => state && !state.disabledReason && state.cooldownUntil > now);
      if (cooling.length === 0) return { kind: "none" };
      return { kind: "cooling", retryAt: Math.min(...cooling.map((state) => (state as AccountState).cooldownUntil)) };
    }
    // A session stays on its healthy account, waiting for a slot there rather than moving.
    const stuck = healthy.find((account) => account.id === stuckId);
    const free = stuck
      ? [stuck].filter((account) => this.inFlightOf(account.id) < account.maxInFlight)
      : healthy.filter((account) => this.inFlightOf(account.id) < account.maxInFlight);
    const chosen =
      free.length === 0
        ? undefined
        : this.options.config.strategy === "round-robin" && !stuck
          ? free[this.roundRobinNext++ % free.length]
          : free[0];
    return chosen ? { kind: "lease", lease: this.lease(chosen) } : undefined;
  }

  private inFlightOf(accountId: string): number {
    return this.inFlight.get(accountId) ?? 0;
  }

  private lease(account: A): Lease<A> {
    this.inFlight.set(account.id, this.inFlightOf(account.id) + 1);
    let released = false;
    return {
      account,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight.set(account.id, this.inFlightOf(account.id) - 1);
        for (const wake of this.slotWaiters) wake();
        this.slotWaiters.clear();
      },
    };
  }

  private waitForSlot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.slotWaiters.delete(wake);
        reject(signal?.reason);
      };
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.slotWaiters.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Cools an account until `until` (extend-only, capped at the longest quota window). */
  cooldown(accountId: string, until: number, reason: string): Promise<number> {
    return this.store.extendCooldown(accountId, Math.min(until, Date.now() + MAX_COOLDOWN_MS), reason);
  }

  /** Takes an account out of rotation; an id the pool does not hold rejects with `UnknownAccountError` (404). */
  disable(accountId: string, reason: string): Promise<void> {
    if (!this.holds(accountId)) return Promise.reject(new UnknownAccountError(accountId));
    return this.store.disable(accountId, reason);
  }

  /** Puts a disabled account back in rotation; an id the pool does not hold rejects with `UnknownAccountError` (404). */
  enable(accountId: string): Promise<void> {
    if (!this.holds(accountId)) return Promise.reject(new UnknownAccountError(accountId));
    return this.store.enable(accountId);
  }

  private holds(accountId: string): boolean {
    return this.accounts.some((account) => account.id === accountId);
  }

  saveQuota(accountId: string, quota: Quota): Promise<void> {
    if (!this.immediate) return this.store.saveQuota(accountId, quota);
    this.immediate.saveQuotaNow(accountId, quota);
    return Promise.resolve();
  }

  recordUsage(accountId: string, model: string, usage: TokenUsage): Promise<void> {
    const cost = costOf(this.prices, model, usage);
    if (!this.immediate) return this.store.addUsage(accountId, model, usage, cost);
    this.immediate.addUsageNow(accountId, model, usage, cost);
    return Promise.resolve();
  }

  /** Every account with status, quota and usage, secrets left out. */
  async rows(): Promise<AccountRow[]> {
    const [states, usage] = await Promise.all([this.store.readStates(this.accounts.map((account) => account.id)), this.store.readUsage()]);
    const now = Date.now();
    return this.accounts.map((account) => {
      const state = states[account.id] ?? { cooldownUntil: 0 };
      const byModel: Record<string, UsageTotals> = {};
      const totals = emptyTotals();
      for (const row of usage.filter((entry) => entry.accountId === account.id)) {
        byModel[row.model] = row.totals;
        for (const key of Object.keys(totals) as Array<keyof UsageTotals>) totals[key] += row.totals[key];
      }
      const cooling = state.cooldownUntil > now;
      return {
        id: account.id,
        vendor: account.vendor,
        type: account.type,
        priority: account.priority,
        status: state.disabledReason ? "disabled" : cooling ? "cooling" : "active",
        cooldownUntil: cooling ? new Date(state.cooldownUntil).toISOString() : null,
        cooldownReason: cooling ? (state.cooldownReason ?? null) : null,
        disabledReason: state.disabledReason ?? null,
        inFlight: this.inFlightOf(account.id),
        quota: state.quota ?? null,
        usage: { totals, byModel },
      };
    });
  }
}

function isHealthy(state: AccountState | undefined, now: number): boolean {
  return !state || (!state.disabledReason && state.cooldownUntil <= now);
}
