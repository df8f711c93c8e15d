import { BoundedCache } from "@conduit-ai/server-core/internal";
import type { Cluster, Redis } from "ioredis";
import { RedisOutbox } from "../outbox/redis-outbox.js";
import type { KeyRecord, TeamRecord } from "../records.js";
import type { UsageEvent } from "../usage/usage-event.js";
import type { WindowClock } from "../windows.js";
import {
  type AdmitInput,
  type AdmitOutcome,
  type GovernanceStore,
  LEASE_RECORD_RETENTION_MS,
  type Reservation,
  type SettleInput,
  type SpendFigures,
} from "./governance-store.js";
import { ADMIT_SCRIPT, RENEW_SCRIPT, SETTLE_SCRIPT } from "./lua-scripts.js";
import { openCallJson, openCallOf } from "./open-call.js";
import { USAGE_STREAM, openCallKeys, retiredTagsKey } from "./redis-keyspace.js";
import { RedisStoreKeys, type Scope } from "./redis-store-keys.js";
import { admitOutcomeOf, storedKeyJson, windowExpiries } from "./stored-key.js";

type RedisClient = Redis | Cluster;
type ScriptClient = RedisClient & {
  conduitGovernanceAdmit(...args: Array<string | number>): Promise<string[]>;
  conduitGovernanceSettle(...args: Array<string | number>): Promise<number>;
  conduitGovernanceRenew(...args: Array<string | number>): Promise<number>;
};

export interface RedisGovernanceStoreOptions {
  /** The caller's client (a `Redis` or a `Cluster`): the store never opens its own connection. */
  redis: RedisClient;
  /** Namespace of every key (default `conduit:gov`). */
  namespace?: string;
  /**
   * Keep each settlement's usage event in the tag's outbox (`{tag}:outbox:usage`), in the same
   * script as the settlement, for an `OutboxDrain` to write to the durable history. Without it the
   * gate hands events to its usage sink itself.
   */
  outbox?: RedisOutbox;
}

/**
 * Keys, teams and counters in Redis, shared by every process on it. A key's record, its counters
 * and its team's all sit under one hash tag — the team's (`{ns:t:<team>}`) or, for a key without
 * a team, the key's own — so the admit and settle scripts each touch one slot. A digest index
 * (outside any script) routes a credential to its key id; it is cached, so a known key costs one
 * round trip. The index only routes: the script checks the digest against the key's own record.
 * Beside each lease the admit script keeps the call's record (`{tag}:calls`), which its settlement
 * removes, so a sweeper can settle the calls of a process that died (`LostCallSweeper`).
 *
 * @example
 * const store = new RedisGovernanceStore({ redis: new Redis(process.env.REDIS_URL) });
 */
export class RedisGovernanceStore implements GovernanceStore {
  readonly kind = "redis" as const;
  readonly keepsUsageEvents: boolean;
  readonly namespace: string;
  readonly #redis: ScriptClient;
  readonly #namespace: string;
  readonly #keys: RedisStoreKeys;
  readonly #outbox: RedisOutbox | undefined;
  /** digest → key id and team ("" none); bounded, and harmless when stale (the script decides). */
  readonly #routes = new BoundedCache<{ id: string; team: string }>({ maxEntries: 10_000 });

  constructor(options: RedisGovernanceStoreOptions) {
    this.#namespace = options.namespace ?? "conduit:gov";
    this.namespace = this.#namespace;
    this.#keys = new RedisStoreKeys(this.#namespace);
    this.#outbox = options.outbox;
    this.keepsUsageEvents = options.outbox !== undefined;
    const redis = options.redis as ScriptClient;
    if (typeof redis.conduitGovernanceRenew !== "function") {
      redis.defineCommand("conduitGovernanceAdmit", { lua: ADMIT_SCRIPT });
      redis.defineCommand("conduitGovernanceSettle", { lua: SETTLE_SCRIPT });
      redis.defineCommand("conduitGovernanceRenew", { lua: RENEW_SCRIPT });
    }
    this.#redis = redis;
  }

  async #route(digest: string): Promise<{ id: string; team: string } | undefined> {
    const cached = this.#routes.get(digest);
    if (cached) return cached;
    const id = await this.#redis.get(`${this.#namespace}:digest:${digest}`);
    if (!id) return undefined;
    const team = (await this.#redis.hget(`${this.#namespace}:keys`, id)) ?? "";
    const route = { id, team };
    this.#routes.set(digest, route);
    return route;
  }

  async admit(input: AdmitInput): Promise<AdmitOutcome> {
    const route = await this.#route(input.digest);
    if (!route) return { admitted: false, reason: "invalid_key" };
    const team = route.team || undefined;
    const { clock } = input;
    const keys = [
      this.#keys.recordKey(route.id, team),
      ...this.#keys.scopeKeys(this.#keys.keyScope(route.id, team), clock.minute, clock.ids),
    ];
    if (team) keys.push(this.#keys.teamRecordKey(team), ...this.#keys.scopeKeys(this.#keys.teamScope(team), clock.minute, clock.ids));
    const { calls, due } = openCallKeys(this.#keys.tag(route.id, team));
    keys.push(calls, due);
    const expiries = windowExpiries(clock);
    const call = input.call ? openCallJson(openCallOf(input.call, input, route.id, team)) : "";
    const reply = await this.#redis.conduitGovernanceAdmit(
      keys.length,
      ...keys,
      input.digest,
      clock.nowMs,
      input.model ?? "",
      input.estimatedTokens,
      input.estimatedPicoUsd,
      clock.resets.day,
      clock.resets.week,
      clock.resets.month,
      clock.secondsToMinute,
      input.leaseId,
      clock.nowMs + input.leaseTtlMs,
      expiries.day,
      expiries.week,
      expiries.month,
      input.unpricedModel ?? "",
      LEASE_RECORD_RETENTION_MS,
      call,
      input.kind ?? "",
    );
    if (reply[0] === "invalid_key") this.#routes.delete(input.digest);
    return admitOutcomeOf(reply, input);
  }

  async settle(reservation: Reservation, actual: SettleInput, event?: UsageEvent): Promise<boolean> {
    return this.#settle(reservation, actual.actualTokens, actual.actualPicoUsd, this.#outbox ? event : undefined);
  }

  async release(reservation: Reservation): Promise<boolean> {
    return this.#settle(reservation, reservation.reservedTokens, 0);
  }

  /**
   * The sweep of a call whose process was lost: settled at its whole reservation, with `event`,
   * if its lease expired before `expiredBeforeMs` — checked in the settle script itself, so a
   * lease renewed since the sweeper read it is left alone. True when this call applied it.
   */
  async settleLost(reservation: Reservation, event: UsageEvent, expiredBeforeMs: number): Promise<boolean> {
    const kept = this.#outbox ? event : undefined;
    return this.#settle(reservation, reservation.reservedTokens, reservation.reservedPicoUsd, kept, expiredBeforeMs);
  }

  async #settle(reservation: Reservation, tokens: number, picoUsd: number, event?: UsageEvent, expiredBeforeMs?: number): Promise<boolean> {
    const keys = this.#keys.reservationKeys(reservation);
    const tag = this.#keys.tag(reservation.keyId, reservation.team);
    const { calls, due } = openCallKeys(tag);
    const outbox = RedisOutbox.keys(tag, USAGE_STREAM);
    keys.push(calls, due, outbox.records, outbox.due);
    const applied = await this.#redis.conduitGovernanceSettle(
      keys.length,
      ...keys,
      reservation.leaseId,
      reservation.reservedTokens,
      tokens,
      String(-reservation.reservedPicoUsd),
      Math.round(picoUsd),
      reservation.windowExpiries.day,
      reservation.windowExpiries.week,
      reservation.windowExpiries.month,
      event ? JSON.stringify(event) : "",
      Date.now(),
      expiredBeforeMs ?? "",
    );
    if (applied === 1 && event) this.#outbox?.notePush(tag, USAGE_STREAM);
    return applied === 1;
  }

  async renewLease(reservation: Reservation, untilMs: number): Promise<void> {
    const scopes = [
      this.#keys.keyScope(reservation.keyId, reservation.team),
      ...(reservation.team ? [this.#keys.teamScope(reservation.team)] : []),
    ];
    const keys = scopes.map(({ tag, name }) => `${tag}:lease:${name}`);
    keys.push(openCallKeys(this.#keys.tag(reservation.keyId, reservation.team)).due);
    await this.#redis.conduitGovernanceRenew(keys.length, ...keys, reservation.leaseId, Math.round(untilMs), LEASE_RECORD_RETENTION_MS);
  }

  async keyIdOf(digest: string): Promise<string | undefined> {
    return (await this.#route(digest))?.id;
  }

  async isActiveDigest(digest: string, nowMs: number): Promise<boolean> {
    const route = await this.#route(digest);
    if (!route) return false;
    const until = await this.#redis.hget(this.#keys.recordKey(route.id, route.team || undefined), `d:${digest}`);
    return until !== null && (until === "0" || nowMs < Number(until));
  }

  async createKey(record: KeyRecord, digest: string): Promise<void> {
    await this.#redis.hset(this.#keys.recordKey(record.id, record.team), { config: storedKeyJson(record), [`d:${digest}`]: "0" });
    await this.#redis.hset(`${this.#namespace}:keys`, record.id, record.team ?? "");
    await this.#redis.set(`${this.#namespace}:digest:${digest}`, record.id);
  }

  async #keyRecordKey(id: string): Promise<string | undefined> {
    const team = await this.#redis.hget(`${this.#namespace}:keys`, id);
    if (team === null) return undefined;
    return this.#keys.recordKey(id, team || undefined);
  }

  async getKey(id: string): Promise<KeyRecord | undefined> {
    const recordKey = await this.#keyRecordKey(id);
    const json = recordKey ? await this.#redis.hget(recordKey, "config") : null;
    return json ? (JSON.parse(json) as KeyRecord) : undefined;
  }

  async listKeys(): Promise<KeyRecord[]> {
    const ids = Object.keys(await this.#redis.hgetall(`${this.#namespace}:keys`));
    const records = await Promise.all(ids.map((id) => this.getKey(id)));
    return records.filter((record): record is KeyRecord => record !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async updateKey(record: KeyRecord): Promise<void> {
    const recordKey = await this.#keyRecordKey(record.id);
    if (recordKey) await this.#redis.hset(recordKey, "config", storedKeyJson(record));
  }

  async deleteKey(id: string): Promise<boolean> {
    const team = await this.#redis.hget(`${this.#namespace}:keys`, id);
    if (team === null) return false;
    const recordKey = this.#keys.recordKey(id, team || undefined);
    const digests = (await this.#redis.hkeys(recordKey)).filter((field) => field.startsWith("d:")).map((field) => field.slice(2));
    // The record goes first: from this moment every process's script refuses the key.
    await this.#redis.del(recordKey);
    // A teamless key's tag is its own: its open calls and usage events outlive it there.
    if (!team) await this.#redis.zadd(retiredTagsKey(this.#namespace), Date.now(), this.#keys.tag(id, undefined));
    await this.#redis.hdel(`${this.#namespace}:keys`, id);
    if (digests.length > 0) await this.#redis.del(...digests.map((digest) => `${this.#namespace}:digest:${digest}`));
    // This process forgets the routes at once; another one's cached route meets the deleted record and is refused.
    for (const digest of digests) this.#routes.delete(digest);
    return true;
  }

  async rotateKey(id: string, digest: string, oldValidUntilMs: number): Promise<boolean> {
    const recordKey = await this.#keyRecordKey(id);
    if (!recordKey) return false;
    const old = (await this.#redis.hkeys(recordKey)).filter((field) => field.startsWith("d:"));
    const fields: Record<string, string> = { [`d:${digest}`]: "0" };
    for (const field of old) {
      const until = Number(await this.#redis.hget(recordKey, field));
      fields[field] = String(until > 0 ? Math.min(until, oldValidUntilMs) : oldValidUntilMs);
    }
    await this.#redis.hset(recordKey, fields);
    await this.#redis.set(`${this.#namespace}:digest:${digest}`, id);
    return true;
  }

  async createTeam(record: TeamRecord): Promise<void> {
    await this.#redis.hset(this.#keys.teamRecordKey(record.id), "config", JSON.stringify(record));
    await this.#redis.sadd(`${this.#namespace}:teams`, record.id);
  }

  async getTeam(id: string): Promise<TeamRecord | undefined> {
    const json = await this.#redis.hget(this.#keys.teamRecordKey(id), "config");
    return json ? (JSON.parse(json) as TeamRecord) : undefined;
  }

  async listTeams(): Promise<TeamRecord[]> {
    const ids = await this.#redis.smembers(`${this.#namespace}:teams`);
    const records = await Promise.all(ids.map((id) => this.getTeam(id)));
    return records.filter((record): record is TeamRecord => record !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async updateTeam(record: TeamRecord): Promise<void> {
    await this.createTeam(record);
  }

  async deleteTeam(id: string): Promise<boolean> {
    const removed = await this.#redis.del(this.#keys.teamRecordKey(id));
    if (removed > 0) await this.#redis.zadd(retiredTagsKey(this.#namespace), Date.now(), this.#keys.tag("", id));
    await this.#redis.srem(`${this.#namespace}:teams`, id);
    return removed > 0;
  }

  async spendOf(scope: { keyId: string } | { team: string }, clock: WindowClock): Promise<SpendFigures> {
    let counters: Scope | undefined;
    if ("team" in scope) counters = this.#keys.teamScope(scope.team);
    else {
      const team = await this.#redis.hget(`${this.#namespace}:keys`, scope.keyId);
      counters = team === null ? undefined : this.#keys.keyScope(scope.keyId, team || undefined);
    }
    if (!counters) return { day: 0, week: 0, month: 0, total: 0 };
    const [, , ...windows] = this.#keys.scopeKeys(counters, "0", clock.ids);
    const values = await Promise.all(windows.map((key) => this.#redis.hget(key, "spent")));
    const [day, week, month, total] = values.map((value) => Number(value ?? 0)) as [number, number, number, number];
    return { day, week, month, total };
  }

  async close(): Promise<void> {
    this.#routes.clear();
  }
}
