import type { ModelPrice, TokenUsage, UsageLedgerReader, UsageLedgerRecord, UsageQuery, UsageReport } from "@conduit-ai/server-core";

/** A ledger the runtime writes to after every call and the `/api/ai` analysis reads. */
export interface UsageLedger extends UsageLedgerReader {
  /** Adds one call; never throws (a failing store logs and drops the record). */
  record(record: UsageLedgerRecord): Promise<void>;
  query(query: UsageQuery): Promise<UsageReport>;
  priceOf(provider: string, model: string): ModelPrice | undefined;
  /** USD for a call by the server's one price function (cache, reasoning and tier prices), null when unpriced; without it only input and output are priced. */
  costOf?(provider: string, model: string, usage: TokenUsage): number | null;
  close?(): Promise<void>;
}
