import type { ModelPrice, UsageLedgerReader, UsageLedgerRecord, UsageQuery, UsageReport } from "@conduit-ai/server-core";

/** A ledger the runtime writes to after every call and the `/api/ai` analysis reads. */
export interface UsageLedger extends UsageLedgerReader {
  /** Adds one call; never throws (a failing store logs and drops the record). */
  record(record: UsageLedgerRecord): Promise<void>;
  query(query: UsageQuery): Promise<UsageReport>;
  priceOf(provider: string, model: string): ModelPrice | undefined;
  close?(): Promise<void>;
}
