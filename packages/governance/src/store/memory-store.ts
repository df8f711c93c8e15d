import type { KeyRecord, Policy, TeamRecord } from "../records.js";
import { WINDOW_COUNTER_GRACE_MS, type WindowClock, windowEnd } from "../windows.js";
import {
  type AdmitInput,
  type AdmitOutcome,
  type GovernanceStore,
  LEASE_RECORD_RETENTION_MS,
  type Reservation,
  type SettleInput,
  type SpendFigures,
} from "./governance-store.js";
import { windowExpiries } from "./stored-key.js";

interface Counters {
  /** Pico-dollars by `res:<window id>` / `spent:<window id>`. */
  money: Map<string, number>;
  /** rpm/tpm of the current minute. */
  minute: { id: string; rpm: number; tpm: number };
  /** lease id → expiry (ms); an expired lease stays (uncounted) as the record its late settlement checks. */
  leases: Map<string, number>;
  /** The day the money map was last pruned: past windows' counters go, as the Redis store's expire. */
  day: string;
}

function modelAllowed(models: string[] | undefined, model: string | undefined): boolean {
  if (!models || models.length === 0) return true;
  return models.some((pattern) => pattern === model || (pattern.endsWith("*") && !!model && model.startsWith(pattern.slice(0, -1))));
}

function scopesOf(reservation: Reservation): string[] {
  return [`key:${reservation.keyId}`, ...(reservation.team ? [`team:${reservation.team}`] : [])];
}

/**
 * Drops the counters of windows that are over (kept a day after their end, like the Redis
 * store's keys), and lease records past their retention: memory stays bounded by what is live.
 */
function pruneWindows(counters: Counters, clock: WindowClock): void {
  counters.day = clock.ids.day;
  for (const field of counters.money.keys()) {
    const end = endOfWindowId(field.slice(field.indexOf(":") + 1));
    if (end !== undefined && end + WINDOW_COUNTER_GRACE_MS < clock.nowMs) counters.money.delete(field);
  }
  for (const [lease, until] of counters.leases) if (until < clock.nowMs - LEASE_RECORD_RETENTION_MS) counters.leases.delete(lease);
}

/** When the window a `WindowClock` id names ends (`2026-11-26`, `w2026-11-23`, `2026-11`); undefined for `total`. */
function endOfWindowId(id: string): number | undefined {
  if (id === "total") return undefined;
  if (id.startsWith("w")) return windowEnd("week", Date.parse(`${id.slice(1)}T00:00:00Z`));
  if (id.length === 7) return windowEnd("month", Date.parse(`${id}-01T00:00:00Z`));
  return windowEnd("day", Date.parse(`${id}T00:00:00Z`));
}

/**
 * Keys, teams and counters in this process: the embedded default. Same rules as the Redis
 * store's script, each admission decided synchronously (so atomically) — and lost on restart.
 *
 * @example
 * const store = new MemoryGovernanceStore();
 */
export class MemoryGovernanceStore implements GovernanceStore {
  readonly kind = "memory" as const;
  /** The gate appends usage events to its sink itself: a process's memory dies with its counters. */
  readonly keepsUsageEvents = false;
  readonly #keys = new Map<string, { record: KeyRecord; digests: Map<string, number> }>();
  readonly #digests = new Map<string, string>();
  readonly #teams = new Map<string, TeamRecord>();
  readonly #counters = new Map<string, Counters>();

  #countersOf(scope: string): Counters {
    let counters = this.#counters.get(scope);
    if (!counters) {
      counters = { money: new Map(), minute: { id: "", rpm: 0, tpm: 0 }, leases: new Map(), day: "" };
      this.#counters.set(scope, counters);
    }
    return counters;
  }

  async admit(input: AdmitInput): Promise<AdmitOutcome> {
    const { clock } = input;
    const keyId = this.#digests.get(input.digest);
    const entry = keyId ? this.#keys.get(keyId) : undefined;
    const validUntil = entry?.digests.get(input.digest);
    if (!entry || validUntil === undefined || (validUntil > 0 && clock.nowMs >= validUntil))
      return { admitted: false, reason: "invalid_key" };
    const key = entry.record;
    if (key.expiresAt && clock.nowMs >= Date.parse(key.expiresAt)) return { admitted: false, reason: "invalid_key" };
    const scopes: Array<{ name: "key" | "team"; policy: Policy; counters: Counters }> = [
      { name: "key", policy: key, counters: this.#countersOf(`key:${key.id}`) },
    ];
    if (key.team) {
      const team = this.#teams.get(key.team);
      if (!team) return { admitted: false, reason: "invalid_key" };
      scopes.push({ name: "team", policy: team, counters: this.#countersOf(`team:${team.id}`) });
    }
    for (const scope of scopes)
      if (input.kind !== "tool" && !modelAllowed(scope.policy.models, input.model))
        return { admitted: false, reason: "model_not_allowed", key };
    if (input.unpricedModel !== undefined)
      for (const scope of scopes)
        if ((scope.policy.budgets?.length ?? 0) > 0) return { admitted: false, reason: "model_unpriced", scope: scope.name, key };
    for (const { name, policy, counters } of scopes) {
      if (counters.minute.id !== clock.minute) counters.minute = { id: clock.minute, rpm: 0, tpm: 0 };
      const retryAfterSeconds = clock.secondsToMinute;
      if (policy.limits?.rpm !== undefined && counters.minute.rpm >= policy.limits.rpm)
        return { admitted: false, reason: "rate_limited", scope: name, limit: "rpm", retryAfterSeconds, key };
      const tpm = policy.limits?.tpm;
      if (tpm !== undefined && counters.minute.tpm > 0 && counters.minute.tpm + input.estimatedTokens > tpm)
        return { admitted: false, reason: "rate_limited", scope: name, limit: "tpm", retryAfterSeconds, key };
    }
    for (const { name, policy, counters } of scopes) {
      for (const budget of policy.budgets ?? []) {
        const id = clock.ids[budget.window];
        const used = (counters.money.get(`spent:${id}`) ?? 0) + (counters.money.get(`res:${id}`) ?? 0);
        if (used + input.estimatedPicoUsd > budget.usd * 1e12) {
          const retryAfterSeconds = budget.window === "total" ? undefined : clock.resets[budget.window];
          return {
            admitted: false,
            reason: "budget_exceeded",
            scope: name,
            window: budget.window,
            key,
            ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
          };
        }
      }
    }
    for (const { name, policy, counters } of scopes) {
      const cap = policy.limits?.concurrency;
      if (cap === undefined) continue;
      let live = 0;
      for (const until of counters.leases.values()) if (until > clock.nowMs) live += 1;
      if (live >= cap)
        return { admitted: false, reason: "concurrency", scope: name, queueTimeoutMs: policy.limits?.queueTimeoutMs ?? 30_000, key };
    }
    for (const { counters } of scopes) {
      if (counters.day !== clock.ids.day) pruneWindows(counters, clock);
      counters.leases.set(input.leaseId, clock.nowMs + input.leaseTtlMs);
      counters.minute.rpm += 1;
      counters.minute.tpm += input.estimatedTokens;
      for (const id of Object.values(clock.ids))
        counters.money.set(`res:${id}`, (counters.money.get(`res:${id}`) ?? 0) + input.estimatedPicoUsd);
    }
    return {
      admitted: true,
      key,
      reservation: {
        keyId: key.id,
        ...(key.team ? { team: key.team } : {}),
        leaseId: input.leaseId,
        minute: clock.minute,
        windowIds: clock.ids,
        windowExpiries: windowExpiries(clock),
        reservedTokens: input.estimatedTokens,
        reservedPicoUsd: input.estimatedPicoUsd,
      },
    };
  }

  async settle(reservation: Reservation, actual: SettleInput): Promise<boolean> {
    return this.#settle(reservation, actual.actualTokens, Math.round(actual.actualPicoUsd));
  }

  async release(reservation: Reservation): Promise<boolean> {
    return this.#settle(reservation, reservation.reservedTokens, 0);
  }

  async renewLease(reservation: Reservation, untilMs: number): Promise<void> {
    for (const scope of scopesOf(reservation)) {
      const leases = this.#countersOf(scope).leases;
      const until = leases.get(reservation.leaseId);
      if (until !== undefined && until < untilMs) leases.set(reservation.leaseId, untilMs);
    }
  }

  /** Applied once: the key's lease is the guard, as in the Redis store's settle script. */
  #settle(reservation: Reservation, tokens: number, picoUsd: number): boolean {
    const scopes = scopesOf(reservation);
    if (!this.#countersOf(scopes[0] as string).leases.delete(reservation.leaseId)) return false;
    for (const scope of scopes) {
      const counters = this.#countersOf(scope);
      counters.leases.delete(reservation.leaseId);
      if (counters.minute.id === reservation.minute) counters.minute.tpm += tokens - reservation.reservedTokens;
      for (const id of Object.values(reservation.windowIds)) {
        counters.money.set(`res:${id}`, (counters.money.get(`res:${id}`) ?? 0) - reservation.reservedPicoUsd);
        counters.money.set(`spent:${id}`, (counters.money.get(`spent:${id}`) ?? 0) + picoUsd);
      }
    }
    return true;
  }

  async keyIdOf(digest: string): Promise<string | undefined> {
    return this.#digests.get(digest);
  }

  async isActiveDigest(digest: string, nowMs: number): Promise<boolean> {
    const entry = this.#keys.get(this.#digests.get(digest) ?? "");
    const until = entry?.digests.get(digest);
    return until !== undefined && (until === 0 || nowMs < until);
  }

  async createKey(record: KeyRecord, digest: string): Promise<void> {
    this.#keys.set(record.id, { record, digests: new Map([[digest, 0]]) });
    this.#digests.set(digest, record.id);
  }

  async getKey(id: string): Promise<KeyRecord | undefined> {
    return this.#keys.get(id)?.record;
  }

  async listKeys(): Promise<KeyRecord[]> {
    return [...this.#keys.values()].map((entry) => entry.record);
  }

  async updateKey(record: KeyRecord): Promise<void> {
    const entry = this.#keys.get(record.id);
    if (entry) entry.record = record;
  }

  async deleteKey(id: string): Promise<boolean> {
    const entry = this.#keys.get(id);
    if (!entry) return false;
    this.#keys.delete(id);
    for (const digest of entry.digests.keys()) this.#digests.delete(digest);
    return true;
  }

  async rotateKey(id: string, digest: string, oldValidUntilMs: number): Promise<boolean> {
    const entry = this.#keys.get(id);
    if (!entry) return false;
    for (const [old, until] of entry.digests) entry.digests.set(old, until > 0 ? Math.min(until, oldValidUntilMs) : oldValidUntilMs);
    entry.digests.set(digest, 0);
    this.#digests.set(digest, id);
    return true;
  }

  async createTeam(record: TeamRecord): Promise<void> {
    this.#teams.set(record.id, record);
  }

  async getTeam(id: string): Promise<TeamRecord | undefined> {
    return this.#teams.get(id);
  }

  async listTeams(): Promise<TeamRecord[]> {
    return [...this.#teams.values()];
  }

  async updateTeam(record: TeamRecord): Promise<void> {
    this.#teams.set(record.id, record);
  }

  async deleteTeam(id: string): Promise<boolean> {
    return this.#teams.delete(id);
  }

  async spendOf(scope: { keyId: string } | { team: string }, clock: WindowClock): Promise<SpendFigures> {
    const counters = this.#counters.get("team" in scope ? `team:${scope.team}` : `key:${scope.keyId}`);
    const spent = (window: keyof SpendFigures) => counters?.money.get(`spent:${clock.ids[window]}`) ?? 0;
    return { day: spent("day"), week: spent("week"), month: spent("month"), total: spent("total") };
  }

  async close(): Promise<void> {}
}
