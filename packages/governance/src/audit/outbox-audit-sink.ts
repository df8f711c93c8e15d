import { type DependencyHealth, storeCall } from "@conduit-ai/server-core";
import { OutboxDrain } from "../outbox/outbox-drain.js";
import { type OutboxEntry, type RedisOutbox, recordsOf } from "../outbox/redis-outbox.js";
import { AUDIT_STREAM } from "../store/redis-keyspace.js";
import type { AuditEvent, AuditQuery, AuditSink, StoredAuditEvent } from "./audit-event.js";
import type { PostgresAuditSink } from "./postgres-audit-sink.js";

export interface OutboxAuditSinkOptions {
  /** The Redis outbox (shared with the usage history's). */
  outbox: RedisOutbox;
  /** The audit outbox's one hash tag (`auditTagOf(namespace)`): every process appends under it. */
  tag: string;
  /** The table's writer and reader; also where an event goes while Redis cannot take it. */
  table: PostgresAuditSink;
  /** How often this process drains what it appended (default 500 ms). */
  intervalMs?: number;
  /** How long an append waits for Redis before the event goes to `table`'s own buffer instead (default 1 s). */
  appendDeadlineMs?: number;
  onWarning?: (message: string) => void;
}

/** Events of one drain, in the order they were made: the chain should read as the acts happened. */
function eventsInOrder(entries: readonly OutboxEntry[], onWarning: (message: string) => void): AuditEvent[] {
  const events = recordsOf<AuditEvent>(entries, "audit event", onWarning);
  // Stable: events of the same millisecond keep the outbox's order.
  return events.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
}

/**
 * The durable audit log when governance has Redis: each event is put in a Redis outbox
 * (`{ns:audit}:outbox:audit`) before the admin answer is sent, and drained into PostgreSQL by
 * any process — this one every 500 ms, the lost-call sweeper for a process that died — through
 * `insertChained`, which decides the chain's order under its advisory lock as for any writer. A
 * process killed with SIGKILL after its answer loses no event. While Redis cannot take an event
 * within `appendDeadlineMs` it goes to the PostgreSQL sink's own buffer and spill file, as
 * without Redis; an append that lands late as well is written once (ids are unique).
 *
 * @example
 * const audit = new OutboxAuditSink({ outbox, tag: auditTagOf("conduit:gov"), table: new PostgresAuditSink({ pool }) });
 * sweeper = new LostCallSweeper({ ..., drains: [usageDrain, audit.drain] });
 */
export class OutboxAuditSink implements AuditSink {
  readonly kind = "postgres" as const;
  /** Hand it to the lost-call sweeper (`drains`): its standing tag is the audit tag. */
  readonly drain: OutboxDrain;
  readonly #outbox: RedisOutbox;
  readonly #tag: string;
  readonly #table: PostgresAuditSink;
  readonly #appendDeadlineMs: number;
  readonly #onWarning: (message: string) => void;
  #redisFailing = false;

  constructor(options: OutboxAuditSinkOptions) {
    this.#outbox = options.outbox;
    this.#tag = options.tag;
    this.#table = options.table;
    this.#appendDeadlineMs = options.appendDeadlineMs ?? 1_000;
    this.#onWarning = options.onWarning ?? (() => {});
    const table = options.table;
    const onWarning = this.#onWarning;
    this.drain = new OutboxDrain({
      outbox: options.outbox,
      stream: AUDIT_STREAM,
      standingTags: [options.tag],
      standingTagsOnly: true,
      write: (entries) => table.write(eventsInOrder(entries, onWarning)),
      ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    });
  }

  /** Events this process holds that are not in PostgreSQL: its fallback buffer and a failed drain's. */
  get pending(): number {
    return this.#table.pending + this.drain.pending;
  }

  async append(event: AuditEvent): Promise<void> {
    try {
      await storeCall(
        "audit log",
        () => this.#outbox.append(this.#tag, AUDIT_STREAM, event.id, JSON.stringify(event)),
        this.#appendDeadlineMs,
      );
      if (this.#redisFailing) this.#onWarning("governance: Redis takes audit events again");
      this.#redisFailing = false;
    } catch (error) {
      if (!this.#redisFailing)
        this.#onWarning(`governance: Redis cannot take audit events (${(error as Error).message}); this process buffers them`);
      this.#redisFailing = true;
      this.#table.append(event);
    }
  }

  query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    return this.#table.query(query);
  }

  /** Drains what this process appended, then writes its fallback buffer. */
  async flush(): Promise<void> {
    await this.drain.flush();
    await this.#table.flush();
  }

  health(): Promise<DependencyHealth> {
    return this.#table.health();
  }

  /** One last drain (what it cannot write stays in Redis for another process), then the fallback's close. */
  async close(): Promise<void> {
    await this.drain.close();
    await this.#table.close();
  }
}
