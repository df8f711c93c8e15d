import { BoundedCache } from "@conduit-ai/server-core/middleware";
import type { Cluster, Redis } from "ioredis";
import type { KeyRecord, TeamRecord } from "../records.js";
import type { WindowClock } from "../windows.js";
import type { AdmitInput, AdmitOutcome, GovernanceStore, Reservation, SettleInput, SpendFigures } from "./governance-store.js";
import { ADMIT_SCRIPT, SETTLE_SCRIPT } from "./lua-scripts.js";
import { admitOutcomeOf, storedKeyJson } from "./stored-key.js";

type RedisClient = Redis | Cluster;
type ScriptClient = RedisClient & {
  conduitGovernanceAdmit(...args: Array<string | number>): Promise<string[]>;
  conduitGovernanceSettle(...args: Array<string | number>): Promise<number>;
};

export interface RedisGovernanceStoreOptions {
  /** The caller's client (a `Redis` or a `Cluster`): the store never opens its own connection. */
  redis: RedisClient;
  /** Namespace of every key (default `conduit:gov`). */
  namespace?: string;
}

/**
 * Keys, teams and counters in Redis, shared by every process on it. A key's record, its counters
 * and its team's all sit under one hash tag — the team's (`{ns:t:<team>}`) or, for a key without
 * a team, the key's own — so the admit and settle scripts each touch one slot. A digest index
 * (outside any script) routes a credential to its key id; it is cached, so a known key costs one
 * round trip. The index only routes: the script checks the digest against the key's own record.
 *
 * @example
 * const store = new RedisGovernanceStore({ redis: new Redis(process.env.REDIS_URL) });
 */
export class RedisGovernanceStore implements GovernanceStore {
  readonly kind = "redis" as const;
  readonly #redis: ScriptClient;
  readonly #namespace: string;
  /** digest → key id and team ("" none); bounded, and harmless when stale (the script decides). */
  readonly #routes = new BoundedCache<{ id: string; team: string }>({ maxEntries: 10_000 });

  constructor(options: RedisGovernanceStoreOptions) {
    this.#namespace = options.namespace ?? "conduit:gov";
    const redis = options.redis as ScriptClient;
    if (typeof redis.conduitGovernanceAdmit !== "function") {
      redis.defineCommand("conduitGovernanceAdmit", { lua: ADMIT_SCRIPT });
      redis.defineCommand("conduitGovernanceSettle", { lua: SETTLE_SCRIPT });
    }
    this.#redis = redis;
  }

  #tag(keyId: string, team: string | undefined): string {
    return team ? `{${this.#namespace}:t:${team}}` : `{${this.#namespace}:k:${keyId}}`;
  }

  #keyKeys(keyId: string, team: string | undefined, minute: string): string[] {
    const tag = this.#tag(keyId, team);
    return [`${tag}:key:${keyId}`, `${tag}:ctr:key:${keyId}`, `${tag}:lease:key:${keyId}`, `${tag}:min:key:${keyId}:${minute}`];
  }

  #teamKeys(team: string, minute: string): string[] {
    const tag = this.#tag("", team);
    return [`${tag}:team`, `${tag}:ctr:team`, `${tag}:lease:team`, `${tag}:min:team:${minute}`];
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
    const keys = [...this.#keyKeys(route.id, team, input.clock.minute), ...(team ? this.#teamKeys(team, input.clock.minute) : [])];
    const { clock } = input;
    const reply = await this.#redis.conduitGovernanceAdmit(
      keys.length,
      ...keys,
      input.digest,
      clock.nowMs,
      input.model ?? "",
      input.estimatedTokens,
      input.estimatedPicoUsd,
      clock.ids.day,
      clock.ids.week,
      clock.ids.month,
      clock.resets.day,
      clock.resets.week,
      clock.resets.month,
      clock.secondsToMinute,
      input.leaseId,
      clock.nowMs + input.leaseTtlMs,
      input.kind ?? "",
    );
    if (reply[0] === "invalid_key") this.#routes.delete(input.digest);
    return admitOutcomeOf(reply, input);
  }

  async settle(reservation: Reservation, actual: SettleInput): Promise<void> {
    await this.#settle(reservation, actual.actualTokens, actual.actualPicoUsd);
  }

  async release(reservation: Reservation): Promise<void> {
    await this.#settle(reservation, reservation.reservedTokens, 0);
  }

  async #settle(reservation: Reservation, tokens: number, picoUsd: number): Promise<void> {
    const keyKeys = this.#keyKeys(reservation.keyId, reservation.team, reservation.minute).slice(1);
    const teamKeys = reservation.team ? this.#teamKeys(reservation.team, reservation.minute).slice(1) : [];
    const keys = [...keyKeys, ...teamKeys];
    await this.#redis.conduitGovernanceSettle(
      keys.length,
      ...keys,
      reservation.leaseId,
      reservation.reservedTokens,
      tokens,
      String(-reservation.reservedPicoUsd),
      Math.round(picoUsd),
      reservation.windowIds.day,
      reservation.windowIds.week,
      reservation.windowIds.month,
    );
  }

  async keyIdOf(digest: string): Promise<string | undefined> {
    return (await this.#route(digest))?.id;
  }

  async isActiveDigest(digest: string, nowMs: number): Promise<boolean> {
    const route = await this.#route(digest);
    if (!route) return false;
    const until = await this.#redis.hget(this.#keyKeys(route.id, route.team || undefined, "0")[0] as string, `d:${digest}`);
    return until !== null && (until === "0" || nowMs < Number(until));
  }

  async createKey(record: KeyRecord, digest: string): Promise<void> {
    const [recordKey] = this.#keyKeys(record.id, record.team, "0");
    await this.#redis.hset(recordKey as string, { config: storedKeyJson(record), [`d:${digest}`]: "0" });
    await this.#redis.hset(`${this.#namespace}:keys`, record.id, record.team ?? "");
    await this.#redis.set(`${this.#namespace}:digest:${digest}`, record.id);
  }

  async #keyRecordKey(id: string): Promise<string | undefined> {
    const team = await this.#redis.hget(`${this.#namespace}:keys`, id);
    if (team === null) return undefined;
    return this.#keyKeys(id, team || undefined, "0")[0];
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
    const recordKey = await this.#keyRecordKey(id);
    if (!recordKey) return false;
    const digests = (await this.#redis.hkeys(recordKey)).filter((field) => field.startsWith("d:")).map((field) => field.slice(2));
    // The record goes first: from this moment every process's script refuses the key.
    await this.#redis.del(recordKey);
    await this.#redis.hdel(`${this.#namespace}:keys`, id);
    if (digests.length > 0) await this.#redis.del(...digests.map((digest) => `${this.#namespace}:digest:${digest}`));
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
    await this.#redis.hset(this.#teamKeys(record.id, "0")[0] as string, "config", JSON.stringify(record));
    await this.#redis.sadd(`${this.#namespace}:teams`, record.id);
  }

  async getTeam(id: string): Promise<TeamRecord | undefined> {
    const json = await this.#redis.hget(this.#teamKeys(id, "0")[0] as string, "config");
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
    const removed = await this.#redis.del(this.#teamKeys(id, "0")[0] as string);
    await this.#redis.srem(`${this.#namespace}:teams`, id);
    return removed > 0;
  }

  async spendOf(scope: { keyId: string } | { team: string }, clock: WindowClock): Promise<SpendFigures> {
    let counters: string | undefined;
    if ("team" in scope) counters = this.#teamKeys(scope.team, "0")[1];
    else {
      const team = await this.#redis.hget(`${this.#namespace}:keys`, scope.keyId);
      counters = team === null ? undefined : this.#keyKeys(scope.keyId, team || undefined, "0")[1];
    }
    const fields = ["day", "week", "month", "total"] as const;
    const values = counters ? await this.#redis.hmget(counters, ...fields.map((window) => `spent:${clock.ids[window]}`)) : [];
    return Object.fromEntries(fields.map((window, index) => [window, Number(values[index] ?? 0)])) as SpendFigures;
  }

  async close(): Promise<void> {
    this.#routes.clear();
  }
}
