import type { ModelPrice, TokenUsage, UsageLedgerRecord, UsageQuery, UsageReport } from "@conduit-ai/server-core";
import { type PriceOverride, PriceTable } from "./price-table.js";
import {
  COARSE_BUCKET_MS,
  DEFAULT_RETENTION_MS,
  FINE_BUCKET_MS,
  FINE_RETENTION_MS,
  type StoredAggregate,
  addInto,
  aggregateKey,
  buildReport,
  emptyAggregate,
  increments,
  planWindow,
} from "./usage-buckets.js";
import type { UsageLedger } from "./usage-ledger.js";

export interface UsageLedgerOptions {
  /** Prices per model over the server's table: `{input, output}` (the `prices` config key) or `ModelPrice`; a `provider/model` key wins. */
  prices?: Record<string, PriceOverride>;
  /** How far back hour buckets are kept (default 31 days). */
  retentionMs?: number;
  /** Distinct provider × model × operation keys per bucket; more are counted under model `(other)` (default 200). */
  maxKeysPerBucket?: number;
  /** Clock, for tests. */
  now?: () => number;
}

type Buckets = Map<number, Map<string, StoredAggregate>>;

/**
 * The usage ledger of one process, in memory. Bounded: minute buckets for the last 25 hours,
 * hour buckets for `retentionMs`, at most `maxKeysPerBucket` keys per bucket — so its size does
 * not grow with traffic.
 *
 * @example
 * const ledger = new MemoryUsageLedger();
 * await ledger.record({ provider: "local", model: "echo", operation: "generate", inputTokens: 3, outputTokens: 9, latencyMs: 4, costUsd: 0, timestamp: Date.now() });
 * (await ledger.query({ since: Date.now() - 3_600_000 })).entries[0]?.calls; // 1
 */
export class MemoryUsageLedger implements UsageLedger {
  readonly prices: PriceTable;
  readonly #fine: Buckets = new Map();
  readonly #coarse: Buckets = new Map();
  readonly #retentionMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: UsageLedgerOptions = {}) {
    this.prices = new PriceTable(options.prices);
    this.#retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#maxKeys = options.maxKeysPerBucket ?? 200;
    this.#now = options.now ?? Date.now;
  }

  priceOf(provider: string, model: string): ModelPrice | undefined {
    return this.prices.priceOf(provider, model);
  }

  costOf(provider: string, model: string, usage: TokenUsage): number | null {
    return this.prices.costOf(provider, model, usage);
  }

  async record(record: UsageLedgerRecord): Promise<void> {
    const added = increments(record);
    for (const [buckets, width] of [
      [this.#fine, FINE_BUCKET_MS],
      [this.#coarse, COARSE_BUCKET_MS],
    ] as const) {
      const start = Math.floor(record.timestamp / width) * width;
      const bucket = buckets.get(start) ?? new Map<string, StoredAggregate>();
      buckets.set(start, bucket);
      let key = aggregateKey(record.provider, record.model, record.operation);
      if (!bucket.has(key) && bucket.size >= this.#maxKeys) key = aggregateKey(record.provider, "(other)", record.operation);
      const aggregate = bucket.get(key) ?? emptyAggregate();
      addInto(aggregate, added);
      bucket.set(key, aggregate);
    }
    this.#prune();
  }

  #prune(): void {
    const now = this.#now();
    for (const [buckets, keepMs] of [
      [this.#fine, FINE_RETENTION_MS],
      [this.#coarse, this.#retentionMs],
    ] as const) {
      for (const start of buckets.keys()) if (start < now - keepMs) buckets.delete(start);
    }
  }

  async query(query: UsageQuery): Promise<UsageReport> {
    const window = planWindow(query, this.#now(), this.#retentionMs);
    const source = window.granularityMs === FINE_BUCKET_MS ? this.#fine : this.#coarse;
    const buckets = window.starts.flatMap((start) => {
      const aggregates = source.get(start);
      return aggregates ? [{ start, aggregates }] : [];
    });
    return buildReport(window, "memory", buckets, query.providers);
  }
}
