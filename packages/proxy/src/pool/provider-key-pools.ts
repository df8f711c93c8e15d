import { createHash } from "node:crypto";
import { type KeyLease, type KeyOutcome, type KeySource, ServerAdapterError } from "@conduit-ai/server-core";
import { AccountPool, type PoolMember } from "./account-pool.js";
import type { PoolStore } from "./store/pool-store.js";

/** One API key of a provider as a pool member; its id is a fingerprint, never the key. */
interface ProviderKey extends PoolMember {
  apiKey: string;
  provider: string;
  /** 1-based position in `apiKeys`, for the warning line. */
  position: number;
}

/** The one gauge the pools report to, `{provider, key, status}` set to 1 for a key's current status. */
export interface KeyStatusGauge {
  set(labels: { provider: string; key: string; status: string }, value: number): void;
}

export type KeyStatus = "active" | "cooling" | "disabled";
const STATUSES: readonly KeyStatus[] = ["active", "cooling", "disabled"];

export interface ProviderKeyPoolsOptions {
  /** Memory for one process, Redis for several (the accounts' store type, under its own prefix). */
  store: PoolStore;
  strategy?: "fill-first" | "round-robin";
  /** When a key that answered 429 may serve again (epoch ms): the vendors' reset headers, read by the caller. */
  resetAt: (headers: Headers | undefined, now: number) => number;
  warn: (message: string) => void;
}

/**
 * A call refused before it left: every key of the provider is cooling (429, with the soonest
 * reset as `retry-after`) or disabled (502, as when a provider's only key is refused). The
 * runtime passes it on as is; routing moves to the next target on either.
 */
function keysUnavailable(provider: string, retryAt: number | undefined): ServerAdapterError {
  if (retryAt === undefined)
    return new ServerAdapterError(`Every API key of provider "${provider}" was refused upstream (401/403) and is disabled`, {
      code: "PROVIDER_AUTH_FAILED",
      statusCode: 502,
      category: "EXTERNAL",
      details: { provider },
    });
  return new ServerAdapterError(`Provider "${provider}" is rate limiting requests: every API key is cooling`, {
    code: "PROVIDER_RATE_LIMITED",
    statusCode: 429,
    category: "RATE_LIMIT",
    retryable: true,
    retryAfterMs: Math.max(0, retryAt - Date.now()),
    details: { provider },
  });
}

function fingerprint(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 12);
}

/**
 * The key pools of the runtime's providers, on the same `AccountPool` as the proxy's accounts:
 * a provider whose `apiKeys` holds several keys spreads calls over them (`fill-first` or
 * `round-robin`), a key answering 429 cools until its reset, one answering 401/403 is disabled
 * with one warning line, and the store (Redis with several processes) makes every process agree.
 *
 * @example
 * const pools = new ProviderKeyPools({ store, resetAt: keyResetAt, warn });
 * createRuntime({ providers, keySources: pools.keySource });
 */
export class ProviderKeyPools {
  private readonly pools = new Map<string, AccountPool<ProviderKey>>();
  private readonly warned = new Set<string>();
  private gauge: KeyStatusGauge | undefined;
  private readonly statuses = new Map<string, { provider: string; key: string; status: KeyStatus }>();

  constructor(private readonly options: ProviderKeyPoolsOptions) {}

  /** The runtime's `keySources`: a pool for a provider with several keys, the runtime's default for one. */
  readonly keySource = (request: { provider: string; keys: readonly string[] }): KeySource | undefined => {
    if (request.keys.length < 2) return undefined;
    const members: ProviderKey[] = request.keys.map((apiKey, index) => ({
      id: `${request.provider}:${fingerprint(apiKey)}`,
      vendor: `provider:${request.provider}`,
      type: "api-key",
      priority: index,
      maxInFlight: Number.MAX_SAFE_INTEGER,
      apiKey,
      provider: request.provider,
      position: index + 1,
    }));
    const pool = new AccountPool<ProviderKey>({
      config: { accounts: members, strategy: this.options.strategy ?? "fill-first", prices: {}, stickyTtlMs: 1 },
      store: this.options.store,
    });
    this.pools.set(request.provider, pool);
    for (const member of members) this.mark(member, "active");
    return { keys: members.length, pick: (signal) => this.pick(pool, request.provider, signal) };
  };

  /** False when the provider has a pool and none of its keys can serve now (all cooling or disabled). */
  usable(provider: string): boolean | Promise<boolean> {
    const pool = this.pools.get(provider);
    if (pool === undefined) return true;
    return this.anyUsable(pool);
  }

  private async anyUsable(pool: AccountPool<ProviderKey>): Promise<boolean> {
    const members = pool.list();
    const states = await this.options.store.readStates(members.map((member) => member.id));
    const now = Date.now();
    return members.some((member) => {
      const state = states[member.id];
      return !state || (!state.disabledReason && state.cooldownUntil <= now);
    });
  }

  /** Reports every key's status to `gauge` from now on (the server's registry exists after the runtime). */
  attachGauge(gauge: KeyStatusGauge): void {
    this.gauge = gauge;
    for (const entry of this.statuses.values()) this.publish(entry);
  }

  private async pick(pool: AccountPool<ProviderKey>, provider: string, signal: AbortSignal | undefined): Promise<KeyLease> {
    const selection = await pool.acquire({ vendor: `provider:${provider}`, ...(signal ? { signal } : {}) });
    if (selection.kind === "cooling") throw keysUnavailable(provider, selection.retryAt);
    if (selection.kind === "none") throw keysUnavailable(provider, undefined);
    const { lease } = selection;
    const member = lease.account;
    let reported = false;
    return {
      key: member.apiKey,
      report: (outcome) => {
        if (reported) return;
        reported = true;
        lease.release();
        void this.settle(pool, member, outcome);
      },
    };
  }

  private async settle(pool: AccountPool<ProviderKey>, member: ProviderKey, outcome: KeyOutcome): Promise<void> {
    const status = outcome.status;
    try {
      if (status === 429) {
        await pool.cooldown(member.id, this.options.resetAt(outcome.headers, Date.now()), "rate limited (429)");
        this.mark(member, "cooling");
      } else if (status === 401 || status === 403) {
        await pool.disable(member.id, `upstream refused the key (${status})`);
        this.mark(member, "disabled");
        if (!this.warned.has(member.id)) {
          this.warned.add(member.id);
          this.options.warn(
            `providers.${member.provider}.apiKeys[${member.position - 1}] (key ${member.id}) was refused with ${status}: disabled, the provider's other keys serve`,
          );
        }
      } else if (status !== undefined && status < 400) {
        this.mark(member, "active");
      }
    } catch (error) {
      this.options.warn(`providers.${member.provider}: the key pool's store failed: ${(error as Error).message}`);
    }
  }

  private mark(member: ProviderKey, status: KeyStatus): void {
    const entry = { provider: member.provider, key: member.id, status };
    const previous = this.statuses.get(member.id);
    if (previous?.status === status) return;
    this.statuses.set(member.id, entry);
    this.publish(entry);
  }

  private publish(entry: { provider: string; key: string; status: KeyStatus }): void {
    for (const status of STATUSES) this.gauge?.set({ provider: entry.provider, key: entry.key, status }, status === entry.status ? 1 : 0);
  }
}
