import {
  type Logger,
  type ModelPrice,
  type TokenUsage,
  type UsageLedgerRecord,
  type UsageQuery,
  type UsageReport,
  storeCall,
} from "@conduit-ai/server-core";
import { closeRedis } from "@conduit-ai/server-core/middleware";
import { hashTag, whenConnected } from "@conduit-ai/server-core/internal";
import type { RuntimeRedis } from "../redis-client.js";
import { PriceTable } from "./price-table.js";
import {
  AGGREGATE_FIELDS,
  COARSE_BUCKET_MS,
  DEFAULT_RETENTION_MS,
  FINE_BUCKET_MS,
  FINE_RETENTION_MS,
  type StoredAggregate,
  aggregateKey,
  buildReport,
  emptyAggregate,
  increments,
  planWindow,
} from "./usage-buckets.js";
import type { UsageLedger } from "./usage-ledger.js";
import type { UsageLedgerOptions } from "./memory-usage-ledger.js";

/**
 * Adds one call to a minute bucket and an hour bucket atomically (KEYS[1], KEYS[2]); fields are
 * `<aggregate key>\n<metric>`. ARGV: field prefix, the eight increments in AGGREGATE_FIELDS
 * order (the last, latencyMsMax, is a max), then the two TTLs in seconds.
 */
const RECORD_SCRIPT = `
local metrics = {"calls","failedCalls","inputTokens","outputTokens","costNanoUsd","unpricedCalls","latencyMsTotal"}
for index = 1, 2 do
  local key = KEYS[index]
  for position, metric in ipairs(metrics) do
    local amount = tonumber(ARGV[position + 1])
    if amount ~= 0 then redis.call("HINCRBY", key, ARGV[1] .. metric, amount) end
  end
  local maxField = ARGV[1] .. "latencyMsMax"
  local latency = tonumber(ARGV[9])
  local current = tonumber(redis.call("HGET", key, maxField) or "0")
  if latency > current then redis.call("HSET", key, maxField, latency) end
  redis.call("EXPIRE", key, tonumber(ARGV[9 + index]))
end
return 1
`;

export interface RedisUsageLedgerOptions extends UsageLedgerOptions {
  /** Prepended to every key; default `conduit:usage:`. */
  keyPrefix?: string;
  /** Close the client on `close()` (true when the runtime created it). */
  ownsClient?: boolean;
  logger?: Logger;
}

/**
 * The usage ledger in Redis, so every process sharing the Redis adds to the same figures.
 * Keys: `<prefix>{<hour start>}m:<minute start>` (kept 25 hours) and
 * `<prefix>{<hour start>}h:<hour start>` (kept for the retention), hashes of counters updated by
 * one Lua script per call; the hour is the hash tag, so the script's two keys share a Redis
 * Cluster slot while successive hours spread over the primaries.
 *
 * @example
 * const ledger = new RedisUsageLedger(new Redis(process.env.REDIS_URL), { keyPrefix: "app:usage:" });
 */
export class RedisUsageLedger implements UsageLedger {
  readonly prices: PriceTable;
  readonly #redis: RuntimeRedis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #logger: Logger | undefined;

  constructor(redis: RuntimeRedis, options: RedisUsageLedgerOptions = {}) {
    this.#redis = redis;
    this.prices = new PriceTable(options.prices);
    this.#prefix = options.keyPrefix ?? "conduit:usage:";
    this.#ownsClient = options.ownsClient ?? false;
    this.#retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
  }

  priceOf(provider: string, model: string): ModelPrice | undefined {
    return this.prices.priceOf(provider, model);
  }

  costOf(provider: string, model: string, usage: TokenUsage): number | null {
    return this.prices.costOf(provider, model, usage);
  }

  #key(granularityMs: number, start: number): string {
    const hour = Math.floor(start / COARSE_BUCKET_MS) * COARSE_BUCKET_MS;
    return `${this.#prefix}${hashTag(String(hour))}${granularityMs === FINE_BUCKET_MS ? "m" : "h"}:${start}`;
  }

  async record(record: UsageLedgerRecord): Promise<void> {
    const added = increments(record);
    const fine = Math.floor(record.timestamp / FINE_BUCKET_MS) * FINE_BUCKET_MS;
    const coarse = Math.floor(record.timestamp / COARSE_BUCKET_MS) * COARSE_BUCKET_MS;
    const field = `${aggregateKey(record.provider, record.model, record.operation)}\n`;
    try {
      // storeCall bounds the wait (1 s), so a failover never holds the call it records.
      await storeCall("usage", async () => {
        await whenConnected(this.#redis, "usage");
        await this.#redis.eval(
          RECORD_SCRIPT,
          2,
          this.#key(FINE_BUCKET_MS, fine),
          this.#key(COARSE_BUCKET_MS, coarse),
          field,
          ...AGGREGATE_FIELDS.map((name) => added[name]),
          Math.ceil(FINE_RETENTION_MS / 1000),
          Math.ceil(this.#retentionMs / 1000),
        );
      });
    } catch (error) {
      // Usage figures must never fail the call they describe.
      this.#logger?.warn({ err: error }, "usage ledger: record dropped (Redis unavailable)");
    }
  }

  /** Throws 503 `STORE_UNAVAILABLE` (store `usage`) while Redis cannot be reached. */
  async query(query: UsageQuery): Promise<UsageReport> {
    const window = planWindow(query, this.#now(), this.#retentionMs);
    const replies = await storeCall("usage", async () => {
      await whenConnected(this.#redis, "usage");
      // One command per bucket, not a pipeline: a cluster spreads the buckets over several nodes.
      return Promise.all(window.starts.map((start) => this.#redis.hgetall(this.#key(window.granularityMs, start))));
    });
    const buckets = window.starts.map((start, index) => ({ start, aggregates: parseHash(replies[index] ?? {}) }));
    return buildReport(window, "redis", buckets, query.providers);
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await closeRedis(this.#redis);
  }
}

function parseHash(hash: Record<string, string>): Map<string, StoredAggregate> {
  const aggregates = new Map<string, StoredAggregate>();
  for (const [field, value] of Object.entries(hash)) {
    const split = field.lastIndexOf("\n");
    const key = field.slice(0, split);
    const metric = field.slice(split + 1) as keyof StoredAggregate;
    if (!(AGGREGATE_FIELDS as readonly string[]).includes(metric)) continue;
    const aggregate = aggregates.get(key) ?? emptyAggregate();
    aggregate[metric] = Number(value);
    aggregates.set(key, aggregate);
  }
  return aggregates;
}
