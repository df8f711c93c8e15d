import type { KeyRecord, TeamRecord } from "../records.js";
import type { UsageEvent } from "../usage/usage-event.js";
import type { WindowClock } from "../windows.js";

/** What one admission asks the store, all decided in one atomic step. */
export interface AdmitInput {
  digest: string;
  model: string | undefined;
  /** Tokens reserved against tpm (estimated input + expected output). */
  estimatedTokens: number;
  /** Pico-dollars (1e-12 USD) reserved against every budget. */
  estimatedPicoUsd: number;
  clock: WindowClock;
  /** The concurrency lease this call holds when admitted. */
  leaseId: string;
  /** A lease not settled (or renewed) by then stops counting (a crashed process must not hold slots forever). */
  leaseTtlMs: number;
  /**
   * The model the reservation found no price for (`keys.unpricedModels: "refuse"`): the call is
   * refused when the key or its team has a budget, admitted at the price it was given otherwise.
   */
  unpricedModel?: string;
  /** `tool`: an MCP tool call, which names no model: the model allow-lists do not apply (the `mcp` policy does). */
  kind?: "tool";
  /**
   * What the call is recorded as if its process is lost before it settles (the Redis store keeps
   * it with the lease, for the sweeper): the model it names and the tokens of `estimatedTokens`.
   */
  call?: { model: string; inputTokens: number; outputTokens: number };
}

/**
 * How long an expired lease is kept as the record a late settlement checks (a settlement queued
 * through a store outage, replayed from a spill file): 7 days. A settlement later than that is dropped.
 */
export const LEASE_RECORD_RETENTION_MS = 7 * 86_400_000;

/** Where the reservation of an admitted call sits, so settle undoes exactly it. */
export interface Reservation {
  keyId: string;
  team?: string;
  leaseId: string;
  minute: string;
  windowIds: WindowClock["ids"];
  /** When the counters of the day, week and month windows expire (epoch ms): their end and a day of grace. */
  windowExpiries: WindowClock["ends"];
  reservedTokens: number;
  reservedPicoUsd: number;
}

export type AdmitOutcome =
  | { admitted: true; key: KeyRecord; reservation: Reservation }
  | { admitted: false; reason: "invalid_key" }
  /** The key's (or its team's) stored record cannot be decoded: this key is refused, the others are not. */
  | { admitted: false; reason: "invalid_key_record"; scope: "key" | "team" }
  /** A number the store cannot count (the gate checks them first; the store refuses before any write). */
  | { admitted: false; reason: "invalid_argument"; argument: string }
  | { admitted: false; reason: "model_not_allowed"; key: KeyRecord }
  | { admitted: false; reason: "model_unpriced"; scope: "key" | "team"; key: KeyRecord }
  | { admitted: false; reason: "rate_limited"; scope: "key" | "team"; limit: "rpm" | "tpm"; retryAfterSeconds: number; key: KeyRecord }
  | { admitted: false; reason: "concurrency"; scope: "key" | "team"; queueTimeoutMs: number; key: KeyRecord }
  | {
      admitted: false;
      reason: "budget_exceeded";
      scope: "key" | "team";
      window: "day" | "week" | "month" | "total";
      retryAfterSeconds?: number;
      key: KeyRecord;
    };

/** The real usage a reservation settles to. */
export interface SettleInput {
  actualTokens: number;
  actualPicoUsd: number;
}

/** Spend (pico-dollars) of a key or team in the windows of a moment. */
export type SpendFigures = Record<"day" | "week" | "month" | "total", number>;

/**
 * Where keys, teams and their counters live: memory for one process, Redis for many. `admit`
 * and `settle` are each one atomic step (one Redis round trip, one Lua script).
 */
export interface GovernanceStore {
  readonly kind: "memory" | "redis";
  /** Whether `settle` keeps the usage event it is given (in a durable outbox, for a drainer). */
  readonly keepsUsageEvents: boolean;
  admit(input: AdmitInput): Promise<AdmitOutcome>;
  /**
   * Settles a reservation to real usage and frees its lease, once: a repeat (a retry whose first
   * attempt was applied but its answer lost) changes nothing. True when this call applied it.
   * With `event`, a store that keeps usage events (`keepsUsageEvents`) stores it in the same
   * atomic step — it exists iff the settlement applied; other stores ignore it.
   */
  settle(reservation: Reservation, actual: SettleInput, event?: UsageEvent): Promise<boolean>;
  /** Drops a reservation and frees its slot, charging nothing (once, like `settle`). */
  release(reservation: Reservation): Promise<boolean>;
  /** Extends a lease still held to `untilMs` (a call running longer than its lease). */
  renewLease(reservation: Reservation, untilMs: number): Promise<void>;

  /** Whether a digest belongs to a live key (the admin guard tells a key holder 403 from a stranger 401). */
  isActiveDigest(digest: string, nowMs: number): Promise<boolean>;
  /** The key a digest routes to (live or not). */
  keyIdOf(digest: string): Promise<string | undefined>;
  createKey(record: KeyRecord, digest: string): Promise<void>;
  getKey(id: string): Promise<KeyRecord | undefined>;
  listKeys(): Promise<KeyRecord[]>;
  /** Replaces the stored record (same id, same team). */
  updateKey(record: KeyRecord): Promise<void>;
  /** Gone at once, for every process. */
  deleteKey(id: string): Promise<boolean>;
  /** Adds a digest; the ones already there stop working at `oldValidUntilMs`. */
  rotateKey(id: string, digest: string, oldValidUntilMs: number): Promise<boolean>;

  createTeam(record: TeamRecord): Promise<void>;
  getTeam(id: string): Promise<TeamRecord | undefined>;
  listTeams(): Promise<TeamRecord[]>;
  updateTeam(record: TeamRecord): Promise<void>;
  deleteTeam(id: string): Promise<boolean>;

  spendOf(scope: { keyId: string } | { team: string }, clock: WindowClock): Promise<SpendFigures>;
  close(): Promise<void>;
}
