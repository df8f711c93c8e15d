import { chained } from "./audit-chain.js";
import { type AuditEvent, type AuditQuery, type AuditSink, type StoredAuditEvent, auditEventMatches } from "./audit-event.js";

/**
 * Audit events in this process's memory, chained as they come: lost on restart and not shared
 * between processes — set `DATABASE_URL` for a durable log. Bounded: beyond `maxEvents` the
 * oldest are dropped (the chain of what remains still verifies from its first row).
 *
 * @example
 * const audit = new MemoryAuditSink();
 */
export class MemoryAuditSink implements AuditSink {
  readonly kind = "memory" as const;
  private readonly events: StoredAuditEvent[] = [];
  private readonly ids = new Set<string>();

  constructor(private readonly maxEvents = 100_000) {}

  append(event: AuditEvent): void {
    if (this.ids.has(event.id)) return;
    this.ids.add(event.id);
    this.events.push(chained(event, this.events.at(-1)));
    while (this.events.length > this.maxEvents) this.ids.delete((this.events.shift() as StoredAuditEvent).id);
  }

  async query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    const found: StoredAuditEvent[] = [];
    for (let index = this.events.length - 1; index >= 0 && found.length < query.limit; index -= 1) {
      const event = this.events[index] as StoredAuditEvent;
      if (auditEventMatches(event, query)) found.push(event);
    }
    return found;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
