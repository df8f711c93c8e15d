import type { Cluster, Redis } from "ioredis";
import { type OpenCall, parseOpenCall } from "./open-call.js";
import { hashTagOf, openCallKeys, retiredTagsKey } from "./redis-keyspace.js";

/** A call whose lease expired without a settlement, as the admit script recorded it (undefined: unreadable). */
export interface DueCall {
  leaseId: string;
  call: OpenCall | undefined;
}

/** A retired tag is visited at least this long, then dropped once nothing is left in it. */
const RETIRED_TAG_MIN_MS = 86_400_000;

/**
 * The lost-call sweeper's view of the Redis store: every hash tag governance writes under (one
 * per team, one per key without a team, and those of deleted keys and teams until they are
 * empty), and the calls whose lease has expired with no settlement. Reads only; the sweep itself
 * is the store's settle script, whose lease guard makes it apply once.
 *
 * @example
 * const openCalls = new RedisOpenCalls({ redis, namespace: "conduit:gov" });
 * for (const tag of await openCalls.tags()) console.log(tag, await openCalls.due(tag, Date.now(), 100));
 */
export class RedisOpenCalls {
  readonly #redis: Redis | Cluster;
  readonly #namespace: string;

  constructor(options: { redis: Redis | Cluster; namespace?: string }) {
    this.#redis = options.redis;
    this.#namespace = options.namespace ?? "conduit:gov";
  }

  /** Every tag governance writes under: teams, keys without a team, and retired tags. */
  async tags(): Promise<string[]> {
    const tags = new Set<string>();
    let cursor = "0";
    do {
      const [next, fields] = await this.#redis.hscan(`${this.#namespace}:keys`, cursor, "COUNT", 1000);
      cursor = next;
      for (let index = 0; index + 1 < fields.length; index += 2)
        tags.add(hashTagOf(this.#namespace, fields[index] as string, (fields[index + 1] as string) || undefined));
    } while (cursor !== "0");
    do {
      const [next, teams] = await this.#redis.sscan(`${this.#namespace}:teams`, cursor, "COUNT", 1000);
      cursor = next;
      for (const team of teams) tags.add(hashTagOf(this.#namespace, "", team));
    } while (cursor !== "0");
    for (const tag of await this.#redis.zrange(retiredTagsKey(this.#namespace), "0", "-1")) tags.add(tag);
    return [...tags];
  }

  /** How many calls of each tag have a lease expired before `nowMs` with no settlement. */
  async dueCounts(tags: readonly string[], nowMs: number): Promise<number[]> {
    return Promise.all(tags.map((tag) => this.#redis.zcount(openCallKeys(tag).due, "-inf", `(${nowMs}`)));
  }

  /** Up to `max` calls of `tag` whose lease expired before `nowMs` with no settlement. */
  async due(tag: string, nowMs: number, max: number): Promise<DueCall[]> {
    const { calls, due } = openCallKeys(tag);
    const leaseIds = await this.#redis.zrangebyscore(due, "-inf", `(${nowMs}`, "LIMIT", 0, max);
    if (leaseIds.length === 0) return [];
    const records = await this.#redis.hmget(calls, ...leaseIds);
    return leaseIds.map((leaseId, index) => {
      const json = records[index];
      return { leaseId, call: typeof json === "string" ? parseOpenCall(json) : undefined };
    });
  }

  /** Drops a call record nothing can settle (unreadable, or its lease long gone). */
  async forget(tag: string, leaseId: string): Promise<void> {
    const { calls, due } = openCallKeys(tag);
    await this.#redis.hdel(calls, leaseId);
    await this.#redis.zrem(due, leaseId);
  }

  /**
   * Stops visiting the retired tags among `tags` that were retired over a day ago and hold
   * nothing any more (no open call, nothing in `outboxSizes`' outboxes).
   */
  async dropEmptyRetired(tags: readonly string[], outboxSizes: (tags: readonly string[]) => Promise<number[]>): Promise<void> {
    const retired = retiredTagsKey(this.#namespace);
    const candidates = await this.#redis.zrangebyscore(retired, "-inf", Date.now() - RETIRED_TAG_MIN_MS);
    const visited = new Set(tags);
    const old = candidates.filter((tag) => visited.has(tag));
    if (old.length === 0) return;
    const [open, outboxes] = await Promise.all([Promise.all(old.map((tag) => this.#redis.zcard(openCallKeys(tag).due))), outboxSizes(old)]);
    const empty = old.filter((_, index) => open[index] === 0 && outboxes[index] === 0);
    if (empty.length > 0) await this.#redis.zrem(retired, ...empty);
  }

  /**
   * Takes this period's sweep for `owner` unless another process took it within `periodMs`: one
   * process sweeps per period, whichever asks first (each sweep applies once anyway).
   */
  async takeTurn(owner: string, periodMs: number): Promise<boolean> {
    return (await this.#redis.set(`${this.#namespace}:sweeper`, owner, "PX", periodMs, "NX")) === "OK";
  }
}
