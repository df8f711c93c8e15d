import { type DependencyHealth, storeCall } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { NdjsonSpill } from "../delivery/ndjson-spill.js";
import { insertUsageRows, migrateUsageTable } from "./postgres-usage-schema.js";
import { dailyUsageRows, queryUsage } from "./postgres-usage-queries.js";
import type { DailyUsageRow, UsageEvent, UsageQuery, UsageRow, UsageSink } from "./usage-event.js";

export interface PostgresUsageSinkOptions {
  /** The caller's pool (`new pg.Pool({ connectionString: process.env.DATABASE_URL })`). */
  pool: Pool;
  /** Table name (default `conduit_usage_events`). */
  table?: string;
  /** Events held in memory while PostgreSQL is away; past it they spill to `spillFile`. Default 10 000. */
  maxBuffer?: number;
  /** NDJSON file the overflow goes to, replayed on recovery. Default `./conduit-usage-spill.ndjson`. */
  spillFile?: string;
  batchSize?: number;
  flushIntervalMs?: number;
  /** Events waiting for this sink elsewhere (the Redis outbox, after a failed write): counted in `bufferedEvents`. */
  waitingElsewhere?: () => number;
  onWarning?: (message: string) => void;
}

/** A health check waits this long for PostgreSQL's `SELECT 1`. */
const HEALTH_DEADLINE_MS = 1_000;

/**
 * The durable history: usage events written to PostgreSQL in batches by a timer, never on the
 * request path. While PostgreSQL is away they wait in a bounded buffer, then in an NDJSON spill
 * file, and are written on recovery. Delivery is at least once; the event id is the primary key
 * and inserts skip ids already there, so nothing is counted twice. With governance on Redis the
 * events do not pass through this process's buffer at all: they wait in the Redis outbox, kept by
 * the settle script itself, and the outbox's drain hands them to `write`.
 *
 * @example
 * const sink = new PostgresUsageSink({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 */
export class PostgresUsageSink implements UsageSink {
  readonly kind = "postgres" as const;
  readonly #pool: Pool;
  readonly #table: string;
  readonly #maxBuffer: number;
  readonly #spill: NdjsonSpill<UsageEvent>;
  readonly #batchSize: number;
  readonly #onWarning: (message: string) => void;
  readonly #waitingElsewhere: () => number;
  #buffer: UsageEvent[] = [];
  #flushing: Promise<void> | undefined;
  #ready: Promise<void> | undefined;
  #healthy = true;
  readonly #timer: NodeJS.Timeout;

  constructor(options: PostgresUsageSinkOptions) {
    this.#pool = options.pool;
    this.#table = options.table ?? "conduit_usage_events";
    if (!/^[a-z_][a-z0-9_]*$/i.test(this.#table)) throw new Error(`governance: invalid table name ${this.#table}`);
    this.#maxBuffer = options.maxBuffer ?? 10_000;
    this.#batchSize = options.batchSize ?? 500;
    this.#onWarning = options.onWarning ?? (() => {});
    this.#spill = new NdjsonSpill({ file: options.spillFile ?? "conduit-usage-spill.ndjson", what: "usage", onWarning: this.#onWarning });
    this.#waitingElsewhere = options.waitingElsewhere ?? (() => 0);
    this.#timer = setInterval(() => void this.flush().catch(() => undefined), options.flushIntervalMs ?? 500);
    this.#timer.unref();
  }

  /** Events not yet in PostgreSQL (buffered in memory; the spill file aside). */
  get pending(): number {
    return this.#buffer.length;
  }

  append(event: UsageEvent): void {
    this.#buffer.push(event);
    if (this.#buffer.length > this.#maxBuffer) {
      const overflow = this.#buffer.splice(0, this.#buffer.length - Math.floor(this.#maxBuffer / 2));
      void this.#spill.spill(overflow, (kept) => this.#buffer.unshift(...kept));
    }
  }

  #ensureTable(): Promise<void> {
    this.#ready ??= migrateUsageTable(this.#pool, this.#table).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #insert(events: UsageEvent[]): Promise<void> {
    await this.#ensureTable();
    await insertUsageRows(this.#pool, this.#table, events);
  }

  /** Writes the buffer (and, first, a spill file left by an outage). One flush at a time. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    await this.#tracked(async () => {
      if (this.#spill.mayHoldItems) await this.#spill.replay((events) => this.#insert(events), this.#batchSize);
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.slice(0, this.#batchSize);
        await this.#insert(batch);
        this.#buffer.splice(0, batch.length);
      }
    });
  }

  /**
   * Writes these events now (the Redis outbox's drain): each id once, however often it comes.
   * Rejects while PostgreSQL is away — they wait in the outbox, not here.
   */
  async write(events: UsageEvent[]): Promise<void> {
    await this.#tracked(async () => {
      for (let start = 0; start < events.length; start += this.#batchSize) await this.#insert(events.slice(start, start + this.#batchSize));
    });
  }

  /** Runs a write, warning once when PostgreSQL goes away and once when it is back. */
  async #tracked(write: () => Promise<void>): Promise<void> {
    try {
      await write();
      if (!this.#healthy) this.#onWarning("governance: PostgreSQL is back; buffered usage events written");
      this.#healthy = true;
    } catch (error) {
      if (this.#healthy) this.#onWarning(`governance: PostgreSQL unavailable, usage events buffered (${(error as Error).message})`);
      this.#healthy = false;
      throw error;
    }
  }

  async query(query: UsageQuery): Promise<UsageRow[]> {
    await this.#ensureTable();
    return queryUsage(this.#pool, this.#table, query);
  }

  async dailyUsage(range: { from: Date; to: Date }): Promise<DailyUsageRow[]> {
    await this.#ensureTable();
    return dailyUsageRows(this.#pool, this.#table, range);
  }

  /**
   * `SELECT 1` within `HEALTH_DEADLINE_MS`: `ok`, `degraded` while events written during an outage
   * are still buffered, `down` when PostgreSQL does not answer. Never required (requests go on;
   * usage waits in memory and the spill file), and always with the count waiting.
   */
  async health(): Promise<DependencyHealth> {
    const started = performance.now();
    const bufferedEvents = () => this.#buffer.length + this.#waitingElsewhere();
    try {
      await storeCall("usage history", () => this.#pool.query("SELECT 1"), HEALTH_DEADLINE_MS);
    } catch {
      const waiting = bufferedEvents();
      return {
        status: "down",
        required: false,
        message: `PostgreSQL unreachable; ${waiting} usage event${waiting === 1 ? "" : "s"} buffered`,
        details: { bufferedEvents: waiting },
      };
    }
    const waiting = bufferedEvents();
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    return {
      status: waiting > 0 && !this.#healthy ? "degraded" : "ok",
      required: false,
      latencyMs,
      ...(waiting > 0 ? { message: `${waiting} usage event${waiting === 1 ? "" : "s"} buffered` } : {}),
      details: { bufferedEvents: waiting },
    };
  }

  /**
   * Writes what is buffered; with PostgreSQL still away, the rest goes to the spill file, which
   * the next process on it replays first: a shutdown during an outage loses no usage either.
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
