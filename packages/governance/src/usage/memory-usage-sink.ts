import {
  type DailyUsageRow,
  type UsageEvent,
  type UsageQuery,
  type UsageRow,
  type UsageSink,
  cacheHitRatio,
  groupOf,
} from "./usage-event.js";

/**
 * Usage events in this process: the embedded default, lost on restart, and bounded (the oldest
 * events go first past `maxEvents`).
 *
 * @example
 * const sink = new MemoryUsageSink();
 */
export class MemoryUsageSink implements UsageSink {
  readonly kind = "memory" as const;
  readonly #events: UsageEvent[] = [];
  readonly #ids = new Set<string>();
  readonly #maxEvents: number;

  constructor(options: { maxEvents?: number } = {}) {
    this.#maxEvents = options.maxEvents ?? 100_000;
  }

  append(event: UsageEvent): void {
    if (this.#ids.has(event.id)) return;
    this.#events.push(event);
    this.#ids.add(event.id);
    if (this.#events.length > this.#maxEvents) {
      const dropped = this.#events.shift();
      if (dropped) this.#ids.delete(dropped.id);
    }
  }

  async query(query: UsageQuery): Promise<UsageRow[]> {
    return aggregateUsage(this.#events, query);
  }

  async dailyUsage(range: { from: Date; to: Date }): Promise<DailyUsageRow[]> {
    return dailyUsageOf(this.#events, range);
  }

  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** Adds events up by group within `[from, to)`, groups in ascending order. */
export function aggregateUsage(events: Iterable<UsageEvent>, query: UsageQuery): UsageRow[] {
  const rows = new Map<string, UsageRow>();
  const from = query.from.getTime();
  const to = query.to.getTime();
  for (const event of events) {
    const time = Date.parse(event.time);
    if (time < from || time >= to) continue;
    const group = groupOf(event, query.groupBy);
    let row = rows.get(group);
    if (!row) {
      row = {
        group,
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        cacheHitRatio: 0,
        savedUsd: 0,
        estimatedRequests: 0,
      };
      rows.set(group, row);
    }
    row.requests += 1;
    row.inputTokens += event.inputTokens;
    row.outputTokens += event.outputTokens;
    row.cacheReadTokens += event.cacheReadTokens;
    row.cacheWriteTokens += event.cacheWriteTokens;
    row.costUsd += event.costUsd;
    row.savedUsd += event.savedUsd ?? 0;
    if (event.estimated === true) row.estimatedRequests += 1;
  }
  for (const row of rows.values()) row.cacheHitRatio = cacheHitRatio(row);
  return [...rows.values()].sort((a, b) => a.group.localeCompare(b.group));
}

/** Model calls summed per UTC day and target within `[from, to)`, in day then target order. */
export function dailyUsageOf(events: Iterable<UsageEvent>, range: { from: Date; to: Date }): DailyUsageRow[] {
  const rows = new Map<string, DailyUsageRow>();
  for (const event of events) {
    const time = Date.parse(event.time);
    if (time < range.from.getTime() || time >= range.to.getTime() || event.kind === "tool") continue;
    const day = event.time.slice(0, 10);
    const target = event.target ?? event.model;
    const id = `${day}\u0000${target}`;
    let row = rows.get(id);
    if (!row) {
      row = { day, target, requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
      rows.set(id, row);
    }
    row.requests += 1;
    row.inputTokens += event.inputTokens;
    row.outputTokens += event.outputTokens;
    row.cacheReadTokens += event.cacheReadTokens;
    row.cacheWriteTokens += event.cacheWriteTokens;
    row.costUsd += event.costUsd;
  }
  return [...rows.values()].sort((a, b) => a.day.localeCompare(b.day) || a.target.localeCompare(b.target));
}
