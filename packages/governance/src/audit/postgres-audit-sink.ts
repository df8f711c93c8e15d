import { type DependencyHealth, storeCall } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { NdjsonSpill } from "../delivery/ndjson-spill.js";
import type { AuditEvent, AuditQuery, AuditSink, StoredAuditEvent } from "./audit-event.js";
import { AUDIT_TABLE, checkedTable, ensureAuditTable, insertChained, queryAuditTable } from "./postgres-audit-table.js";

export interface PostgresAuditSinkOptions {
  /** The caller's pool (`new pg.Pool({ connectionString: process.env.DATABASE_URL })`). */
  pool: Pool;
  /** Table name (default `conduit_audit_events`). */
  table?: string;
  /** Events held in memory while PostgreSQL is away; past it they spill to `spillFile`. Default 10 000. */
  maxBuffer?: number;
  /** NDJSON file the overflow goes to, replayed on recovery. Default `./conduit-audit-spill.ndjson`. */
  spillFile?: string;
  batchSize?: number;
  flushIntervalMs?: number;
  /** Events waiting for this table elsewhere (a Redis outbox, after a failed write): counted in `bufferedEvents`. */
  waitingElsewhere?: () => number;
  onWarning?: (message: string) => void;
}

/** A health check waits this long for PostgreSQL's `SELECT 1`. */
const HEALTH_DEADLINE_MS = 1_000;

/**
 * The durable audit log: events appended off the request path, written to PostgreSQL in batches
 * by a timer, each batch chained to the last row under an advisory lock (`insertChained`). While
 * PostgreSQL is away they wait in a bounded buffer, then in an NDJSON spill file, and are written
 * on recovery — in the order they were appended. Delivery is at least once; the event id is
 * unique and a known id is skipped, so nothing is recorded twice.
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
  readonly #maxBuffer: number;
  readonly #spill: NdjsonSpill<AuditEvent>;
  readonly #batchSize: number;
  readonly #onWarning: (message: string) => void;
  readonly #waitingElsewhere: () => number;
  #buffer: AuditEvent[] = [];
  #flushing: Promise<void> | undefined;
  #ready: Promise<void> | undefined;
  #healthy = true;
  readonly #timer: NodeJS.Timeout;

  constructor(options: PostgresAuditSinkOptions) {
    this.#pool = options.pool;
    this.#table = checkedTable(options.table ?? AUDIT_TABLE);
    this.#maxBuffer = options.maxBuffer ?? 10_000;
    this.#batchSize = options.batchSize ?? 500;
    this.#onWarning = options.onWarning ?? (() => {});
    this.#spill = new NdjsonSpill({ file: options.spillFile ?? "conduit-audit-spill.ndjson", what: "audit", onWarning: this.#onWarning });
    this.#waitingElsewhere = options.waitingElsewhere ?? (() => 0);
    this.#timer = setInterval(() => void this.flush().catch(() => undefined), options.flushIntervalMs ?? 500);
    this.#timer.unref();
  }

  /** Events not yet in PostgreSQL (buffered in memory; the spill file aside). */
  get pending(): number {
    return this.#buffer.length;
  }

  append(event: AuditEvent): void {
    this.#buffer.push(event);
    if (this.#buffer.length > this.#maxBuffer) {
      // The oldest go to the file: replayed first on recovery, so the chain keeps the order they came in.
      // The oldest go to the file: replayed first on recovery, so the chain keeps the order they came in.
      const overflow = this.#buffer.splice(0, this.#buffer.length - Math.floor(this.#maxBuffer / 2));
      void this.#spill.spill(overflow, (kept) => this.#buffer.unshift(...kept));
    }
  }

  #ensureTable(): Promise<void> {
    this.#ready ??= ensureAuditTable(this.#pool, this.#table).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #insert(events: AuditEvent[]): Promise<void> {
    await this.#ensureTable();
    await insertChained(this.#pool, events, this.#table);
  }

  /**
   * Writes events delivered by someone else (a Redis outbox's drain) straight into the chain, in
   * the order given; resolves once committed, rejects while PostgreSQL refuses. Known ids are skipped.
   */
  async write(events: AuditEvent[]): Promise<void> {
    try {
      await this.#insert(events);
      if (!this.#healthy) this.#onWarning("governance: PostgreSQL is back; waiting audit events written");
      this.#healthy = true;
    } catch (error) {
      if (this.#healthy) this.#onWarning(`governance: PostgreSQL unavailable, audit events wait (${(error as Error).message})`);
      this.#healthy = false;
      throw error;
    }
  }

  /** Writes the buffer (and, first, a spill file left by an outage). One flush at a time. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    try {
      if (this.#spill.mayHoldItems) await this.#spill.replay((events) => this.#insert(events), this.#batchSize);
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.slice(0, this.#batchSize);
        await this.#insert(batch);
        this.#buffer.splice(0, batch.length);
      }
      if (!this.#healthy) this.#onWarning("governance: PostgreSQL is back; buffered audit events written");
      this.#healthy = true;
    } catch (error) {
      if (this.#healthy) this.#onWarning(`governance: PostgreSQL unavailable, audit events buffered (${(error as Error).message})`);
      this.#healthy = false;
      throw error;
    }
  }

  async query(query: AuditQuery): Promise<StoredAuditEvent[]> {
    await this.#ensureTable();
    return queryAuditTable(this.#pool, query, this.#table);
  }

  /** `SELECT 1` within a second: `ok`, `degraded` while events written during an outage wait, `down` when PostgreSQL does not answer. */
  async health(): Promise<DependencyHealth> {
    const waiting = () => this.#buffer.length + this.#waitingElsewhere();
    try {
      await storeCall("audit log", () => this.#pool.query("SELECT 1"), HEALTH_DEADLINE_MS);
    } catch {
      return {
        status: "down",
        required: false,
        message: `PostgreSQL unreachable; ${waiting()} audit event${waiting() === 1 ? "" : "s"} buffered`,
        details: { bufferedEvents: waiting() },
      };
    }
    return {
      status: waiting() > 0 && !this.#healthy ? "degraded" : "ok",
      required: false,
      details: { bufferedEvents: waiting() },
    };
  }

  /**
   * Writes what is buffered; with PostgreSQL still away, the rest goes to the spill file, which
   * the next process on it replays first: a shutdown during an outage loses nothing either.
   */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    try {
      await this.flush();
    } catch {
      await this.#spill.spillOrThrow(this.#buffer.splice(0));
    }
  }
}
