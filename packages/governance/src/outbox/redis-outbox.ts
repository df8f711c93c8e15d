import type { Cluster, Redis } from "ioredis";

type RedisClient = Redis | Cluster;
type OutboxClient = RedisClient & {
  conduitOutboxAppend(...args: Array<string | number>): Promise<number>;
  conduitOutboxClaim(...args: Array<string | number>): Promise<string[]>;
  conduitOutboxAck(...args: Array<string | number>): Promise<number>;
  conduitOutboxRelease(...args: Array<string | number>): Promise<number>;
};

/**
 * The Lua function a script embeds to put a record in an outbox in the same atomic step as the
 * rest of its work (governance's settle script: the usage event lands iff the settlement does).
 * `outboxPush(records, due, id, json, now)` answers 1; a record already there (same id) is left as it is: 0.
 */
export const OUTBOX_PUSH_LUA = `
local function outboxPush(records, due, id, json, now)
  if redis.call('HSETNX', records, id, json) == 0 then return 0 end
  redis.call('ZADD', due, now, id)
  return 1
end
`;

/** KEYS: records, due. ARGV: id, json, now (ms). 1 when added, 0 when the id was there. */
const APPEND_SCRIPT = `${OUTBOX_PUSH_LUA}
local now = tonumber(ARGV[3])
if not now or ARGV[1] == '' then return redis.error_reply('conduit outbox: invalid append arguments') end
return outboxPush(KEYS[1], KEYS[2], ARGV[1], ARGV[2], now)
`;

/**
 * KEYS: records, due. ARGV: now (ms), visibility (ms), max. Takes up to `max` records visible now
 * and hides them for the visibility timeout: a drainer that dies before its acknowledgement
 * leaves them to the next one after that. Answers `[id, json, id, json, …]`.
 */
const CLAIM_SCRIPT = `
local now, visibility, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if not (now and visibility and max) then return redis.error_reply('conduit outbox: invalid claim arguments') end
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, max)
local claimed = {}
for _, id in ipairs(ids) do
  local json = redis.call('HGET', KEYS[1], id)
  if json then
    redis.call('ZADD', KEYS[2], now + visibility, id)
    claimed[#claimed + 1] = id
    claimed[#claimed + 1] = json
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return claimed
`;

/** KEYS: records, due. ARGV: the ids written. Removes them (after the write committed). */
const ACK_SCRIPT = `
for _, id in ipairs(ARGV) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
return #ARGV
`;

/** KEYS: records, due. ARGV: now (ms), then the ids. Claimed records a failed write hands back: visible again at once. */
const RELEASE_SCRIPT = `
local now = tonumber(ARGV[1])
if not now then return redis.error_reply('conduit outbox: invalid release arguments') end
for index = 2, #ARGV do redis.call('ZADD', KEYS[2], 'XX', now, ARGV[index]) end
return #ARGV - 1
`;

/** A record taken from an outbox: written by the drainer, then acknowledged. */
export interface OutboxEntry {
  id: string;
  json: string;
}

/** The two keys of one outbox: a hash of records by id, and a sorted set of when each is visible to a drainer. */
export interface OutboxKeys {
  records: string;
  due: string;
}

/**
 * Durable record streams on Redis — the outbox half of "written to PostgreSQL, never lost": a
 * record is in Redis before the work it records is acknowledged, and stays there until a drainer
 * (any process) has written it and acknowledged it. One outbox per hash tag and stream
 * (`{tag}:outbox:<stream>`), so a script that runs under a tag (governance's settle) puts its
 * record in the same atomic step, in one slot of a cluster. Records are claimed with a visibility
 * timeout and removed only when acknowledged: delivery is at least once, and the writer makes it
 * count once (an insert that skips known ids).
 *
 * Usage events use the stream `usage`; any other durable record (an audit log) can use its own
 * with `append` and an `OutboxDrain`.
 *
 * @example
 * const outbox = new RedisOutbox({ redis });
 * await outbox.append("{conduit:gov:audit}", "audit", event.id, JSON.stringify(event));
 * const entries = await outbox.claim("{conduit:gov:audit}", "audit", { max: 500, visibilityMs: 30_000 });
 */
export class RedisOutbox {
  readonly #redis: OutboxClient;
  readonly #listeners: Array<(tag: string, stream: string) => void> = [];

  constructor(options: { redis: RedisClient }) {
    const redis = options.redis as OutboxClient;
    if (typeof redis.conduitOutboxRelease !== "function") {
      redis.defineCommand("conduitOutboxAppend", { lua: APPEND_SCRIPT });
      redis.defineCommand("conduitOutboxClaim", { lua: CLAIM_SCRIPT });
      redis.defineCommand("conduitOutboxAck", { lua: ACK_SCRIPT });
      redis.defineCommand("conduitOutboxRelease", { lua: RELEASE_SCRIPT });
    }
    this.#redis = redis;
  }

  /** The keys of a tag's outbox of `stream` (`tag` with its braces, e.g. `{conduit:gov:t:research}`). */
  static keys(tag: string, stream: string): OutboxKeys {
    const records = `${tag}:outbox:${stream}`;
    return { records, due: `${records}:due` };
  }

  /** Told of every record put in an outbox by this process (a drainer drains that tag soon). */
  onPush(listener: (tag: string, stream: string) => void): void {
    this.#listeners.push(listener);
  }

  /** A script of this process put a record in `tag`'s outbox of `stream` (see `OUTBOX_PUSH_LUA`). */
  notePush(tag: string, stream: string): void {
    for (const listener of this.#listeners) listener(tag, stream);
  }

  /** Puts one record in an outbox on its own (one round trip); a known id is left as it is. */
  async append(tag: string, stream: string, id: string, json: string): Promise<boolean> {
    const { records, due } = RedisOutbox.keys(tag, stream);
    const added = (await this.#redis.conduitOutboxAppend(2, records, due, id, json, Date.now())) === 1;
    this.notePush(tag, stream);
    return added;
  }

  /** Up to `max` records visible now, hidden from other drainers for `visibilityMs`. */
  async claim(tag: string, stream: string, options: { max: number; visibilityMs: number }): Promise<OutboxEntry[]> {
    const { records, due } = RedisOutbox.keys(tag, stream);
    const reply = await this.#redis.conduitOutboxClaim(2, records, due, Date.now(), options.visibilityMs, options.max);
    const entries: OutboxEntry[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2)
      entries.push({ id: reply[index] as string, json: reply[index + 1] as string });
    return entries;
  }

  /** Removes records once their write has committed. */
  async ack(tag: string, stream: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { records, due } = RedisOutbox.keys(tag, stream);
    await this.#redis.conduitOutboxAck(2, records, due, ...ids);
  }

  /** Hands claimed records back (their write failed): visible to any drainer at once. */
  async release(tag: string, stream: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { records, due } = RedisOutbox.keys(tag, stream);
    await this.#redis.conduitOutboxRelease(2, records, due, Date.now(), ...ids);
  }

  /** How many records of each tag are visible to a drainer now (claimed ones are not). */
  async visible(tags: readonly string[], stream: string): Promise<number[]> {
    const now = Date.now();
    return Promise.all(tags.map((tag) => this.#redis.zcount(RedisOutbox.keys(tag, stream).due, "-inf", now)));
  }

  /** How many records each tag's outbox holds, claimed or not. */
  async size(tags: readonly string[], stream: string): Promise<number[]> {
    return Promise.all(tags.map((tag) => this.#redis.hlen(RedisOutbox.keys(tag, stream).records)));
  }
}

/**
 * The JSON records of outbox entries, in their order; one that is not JSON (never written so) is
 * dropped with a warning naming `what` and its id, rather than block the rest of its batch.
 *
 * @example
 * const events = recordsOf<UsageEvent>(entries, "usage event", onWarning);
 */
export function recordsOf<T>(entries: readonly OutboxEntry[], what: string, onWarning: (message: string) => void): T[] {
  const records: T[] = [];
  for (const entry of entries) {
    try {
      records.push(JSON.parse(entry.json) as T);
    } catch {
      onWarning(`governance: an unreadable ${what} (${entry.id}) in the Redis outbox was dropped`);
    }
  }
  return records;
}
