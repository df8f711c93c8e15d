/** The runtime calls the usage ledger counts. */
export type UsageOperation = "generate" | "stream" | "embed";

/** One completed (or failed) runtime call, as the runtime records it. */
export interface UsageLedgerRecord {
  provider: string;
  model: string;
  operation: UsageOperation;
  inputTokens: number;
  outputTokens: number;
  /** Wall time of the call in milliseconds (a stream: until its last event). */
  latencyMs: number;
  /** From the runtime's price table; null when the model has no price. */
  costUsd: number | null;
  /** Epoch milliseconds when the call completed. */
  timestamp: number;
  /** The call ended in an error (its tokens are whatever the provider reported, usually 0). */
  failed?: boolean;
}

/** Which calls a `UsageLedgerReader.query` adds up. */
export interface UsageQuery {
  /** Start of the window (epoch ms or Date); rounded down to the ledger's bucket. */
  since: number | Date;
  /** End of the window; default now. */
  until?: number | Date;
  /** Only these providers; default all. */
  providers?: string[];
}

/** Totals of one provider × model × operation over the window. */
export interface UsageAggregate {
  provider: string;
  model: string;
  operation: UsageOperation;
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum over priced calls. */
  costUsd: number;
  /** Calls whose model had no price (not in `costUsd`). */
  unpricedCalls: number;
  latencyMsTotal: number;
  latencyMsMax: number;
}

/** Totals of one time bucket across every provider, for trends and peaks. */
export interface UsageBucket {
  /** ISO start of the bucket. */
  start: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** What a ledger answers for a window. */
export interface UsageReport {
  /** The window actually covered (ISO), after rounding to buckets. */
  from: string;
  to: string;
  /** Bucket width in milliseconds (finer for recent windows). */
  granularityMs: number;
  /** `memory` (this process only) or `redis` (every process sharing the Redis). */
  backend: string;
  entries: UsageAggregate[];
  /** Non-empty buckets, oldest first. */
  buckets: UsageBucket[];
}

/** USD per million tokens. */
export interface ModelPrice {
  inputPerMillionUsd: number;
  outputPerMillionUsd: number;
}

/**
 * The read side of a runtime's usage ledger (`runtime.usage`): every generate, stream and embed
 * call with its tokens, latency and cost. Optional on a `Runtime`; `@conduit-ai/runtime` keeps
 * one in memory, or in Redis when `REDIS_URL` is set so several processes add up.
 *
 * @example
 * const report = await runtime.usage?.query({ since: Date.now() - 3_600_000, providers: ["openai"] });
 * report?.entries.reduce((sum, entry) => sum + entry.outputTokens, 0);
 */
export interface UsageLedgerReader {
  query(query: UsageQuery): Promise<UsageReport>;
  /** The price the ledger charges for a model; undefined when unknown. */
  priceOf?(provider: string, model: string): ModelPrice | undefined;
}
