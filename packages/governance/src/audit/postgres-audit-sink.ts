import type { DependencyHealth } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { type BufferedDeliveryOptions, BufferedPostgresWriter } from "../delivery/buffered-postgres-writer.js";
import type { AuditEvent, AuditQuery, AuditSink, StoredAuditEvent } from "./audit-event.js";
import { AUDIT_TABLE, checkedTable, ensureAuditTable, insertChained, queryAuditTable } from "./postgres-audit-table.js";

export interface PostgresAuditSinkOptions extends BufferedDeliveryOptions {
  /** The caller's pool (`new pg.Pool({ connectionString: process.env.DATABASE_URL })`). */
  pool: Pool;
  /** Table name (default `conduit_audit_events`). */
  table?: string;
  /** NDJSON file the overflow goes to, replayed on recovery. Default `./conduit-audit-spill.ndjson`. */
  spillFile?: string;
}

/**
 * The durable audit log: events appended off the request path, written to PostgreSQL in batches
 * by a timer, each batch chained to the last row under an advisory lock (`insertChained`). While
 * PostgreSQL is away they wait in a bounded buffer, then in an NDJSON spill file, and are written
 * on recovery — in the order they were appended (`BufferedPostgresWriter`). Delivery is at least
 * once; the event id is unique and a known id is skipped, so nothing is recorded twice.
 *
 * This is the delivery without Redis (buffer, spill file, timer: a SIGKILL loses what is still in
 * memory). With Redis, `OutboxAuditSink` delivers through an outbox and hands its drained events
 * to `write`, the same write half (`insertChained`).
 *
 * @example
 * const audit = new PostgresAuditSink({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 */
export class PostgresAuditSink implements AuditSink {
  readonly kind = "postgres" as const;
  readonly #pool: Pool;
  readonly #table: string;
  readonly #writer: BufferedPostgresWriter<AuditEvent>;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresAuditSinkOptions) {
    this.#pool = options.pool;
    this.#table = checkedTable(options.table ?? AUDIT_TABLE);
    this.#writer = new BufferedPostgresWriter({
      ...options,
      what: "audit",
      dependency: "audit log",
      spillFile: options.spillFile ?? "conduit-audit-spill.ndjson",
      insert: async (events) => {
        await this.#ensureTable();
        await insertChained(this.#pool, events, this.#table);
      },
    });
  }

  /** Events not yet in PostgreSQL (buffered in memory; the spill file aside). */
  get pending(): number {
    return this.#writer.pending;
  }

  append(event: AuditEvent): void {
    this.#writer.append(event);
  }

  #ensureTable(): Promise<void> {
    this.#ready ??= ensureAuditTable(this.#pool, this.#table).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * Writes events delivered by someone else (a Redis outbox's drain) straight into the chain, in
   * the order given; resolves once committed, rejects while PostgreSQL refuses. Known ids are skipped.
   */
  write(events: AuditEvent[]): Promise<void> {
    return this.#writer.write(events);
  }

  /** Writes the buffer (and, first, a spill file left by an outage). One flush at a time. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  async query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    await this.#ensureTable();
    return queryAuditTable(this.#pool, query, this.#table);
  }

  /** `ok`, `degraded` while events written during an outage wait, `down` when PostgreSQL does not answer; never required. */
  health(): Promise<DependencyHealth> {
    return this.#writer.health();
  }

  /** Writes what is buffered; with PostgreSQL away, the rest goes to the spill file, which the next process writes first. */
  close(): Promise<void> {
    return this.#writer.close();
  }
}
