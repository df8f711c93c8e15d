import type { UsageAggregate, UsageBucket, UsageLedgerRecord, UsageOperation, UsageQuery, UsageReport } from "@conduit-ai/server-core";

/** Minute buckets answer windows within the last day exactly; hour buckets answer the rest. */
export const FINE_BUCKET_MS = 60_000;
export const FINE_RETENTION_MS = 25 * 3_600_000;
export const COARSE_BUCKET_MS = 3_600_000;
export const DEFAULT_RETENTION_MS = 31 * 24 * 3_600_000;

/** An aggregate as stored: cost in integer nano-dollars so sums stay exact (in Redis too). */
export interface StoredAggregate {
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
  unpricedCalls: number;
  latencyMsTotal: number;
  latencyMsMax: number;
}

export const AGGREGATE_FIELDS = [
  "calls",
  "failedCalls",
  "inputTokens",
  "outputTokens",
  "costNanoUsd",
  "unpricedCalls",
  "latencyMsTotal",
  "latencyMsMax",
] as const;

/** The aggregate key of a call: provider, model and operation, JSON-encoded so any name round-trips. */
export function aggregateKey(provider: string, model: string, operation: UsageOperation): string {
  return JSON.stringify([provider, model, operation]);
}

export function emptyAggregate(): StoredAggregate {
  return {
    calls: 0,
    failedCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costNanoUsd: 0,
    unpricedCalls: 0,
    latencyMsTotal: 0,
    latencyMsMax: 0,
  };
}

/** What one record adds to an aggregate (the max is applied separately). */
export function increments(record: UsageLedgerRecord): StoredAggregate {
  const tokens = (value: number) => (Number.isFinite(value) && value > 0 ? Math.round(value) : 0);
  const latency = tokens(record.latencyMs);
  return {
    calls: 1,
    failedCalls: record.failed ? 1 : 0,
    inputTokens: tokens(record.inputTokens),
    outputTokens: tokens(record.outputTokens),
    costNanoUsd: record.costUsd === null ? 0 : Math.round(record.costUsd * 1e9),
    unpricedCalls: record.costUsd === null ? 1 : 0,
    latencyMsTotal: latency,
    latencyMsMax: latency,
  };
}

export function addInto(target: StoredAggregate, source: StoredAggregate): void {
  for (const field of AGGREGATE_FIELDS) {
    target[field] = field === "latencyMsMax" ? Math.max(target[field], source[field]) : target[field] + source[field];
  }
}

function toMillis(value: number | Date | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const millis = value instanceof Date ? value.getTime() : value;
  return Number.isFinite(millis) ? millis : fallback;
}

/** The buckets a window reads: minute buckets when it starts within the fine retention, else hours. */
export function planWindow(
  query: UsageQuery,
  now: number,
  retentionMs: number,
): { granularityMs: number; starts: number[]; from: number; to: number } {
  const to = Math.min(toMillis(query.until, now), now);
  const since = Math.max(toMillis(query.since, 0), now - retentionMs);
  const granularityMs = since >= now - FINE_RETENTION_MS + FINE_BUCKET_MS ? FINE_BUCKET_MS : COARSE_BUCKET_MS;
  const from = Math.floor(since / granularityMs) * granularityMs;
  const starts: number[] = [];
  for (let start = from; start <= to; start += granularityMs) starts.push(start);
  return { granularityMs, starts, from, to };
}

/** Folds per-bucket aggregates into a report filtered by provider. */
export function buildReport(
  window: { granularityMs: number; from: number; to: number },
  backend: string,
  buckets: Array<{ start: number; aggregates: Map<string, StoredAggregate> }>,
  providers: string[] | undefined,
): UsageReport {
  const wanted = providers && providers.length > 0 ? new Set(providers) : undefined;
  const totals = new Map<string, StoredAggregate>();
  const series: UsageBucket[] = [];
  for (const bucket of buckets) {
    const sum = emptyAggregate();
    for (const [key, aggregate] of bucket.aggregates) {
      const [provider] = JSON.parse(key) as [string];
      if (wanted && !wanted.has(provider)) continue;
      const total = totals.get(key) ?? emptyAggregate();
      addInto(total, aggregate);
      totals.set(key, total);
      addInto(sum, aggregate);
    }
    if (sum.calls > 0) {
      series.push({
        start: new Date(bucket.start).toISOString(),
        calls: sum.calls,
        inputTokens: sum.inputTokens,
        outputTokens: sum.outputTokens,
        costUsd: sum.costNanoUsd / 1e9,
      });
    }
  }
  const entries: UsageAggregate[] = [...totals].map(([key, aggregate]) => {
    const [provider, model, operation] = JSON.parse(key) as [string, string, UsageOperation];
    const { costNanoUsd, ...rest } = aggregate;
    return { provider, model, operation, ...rest, costUsd: costNanoUsd / 1e9 };
  });
  entries.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model) || a.operation.localeCompare(b.operation));
  return {
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    granularityMs: window.granularityMs,
    backend,
    entries,
    buckets: series,
  };
}
