import type { DependencyHealth } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { type BufferedDeliveryOptions, BufferedPostgresWriter } from "../delivery/buffered-postgres-writer.js";
import { insertUsageRows, migrateUsageTable } from "./postgres-usage-schema.js";
import { dailyUsageRows, queryUsage } from "./postgres-usage-queries.js";
import type { DailyUsageRow, UsageEvent, UsageQuery, UsageRow, UsageSink } from "./usage-event.js";

export interface PostgresUsageSinkOptions extends BufferedDeliveryOptions {
  /** The caller's pool (`new pg.Pool({ connectionString: process.env.DATABASE_URL })`). */
  pool: Pool;
  /** Table name (default `conduit_usage_events`). */
  table?: string;
  /** NDJSON file the overflow goes to, replayed on recovery. Default `./conduit-usage-spill.ndjson`. */
  spillFile?: string;
}

/**
 * The durable history: usage events written to PostgreSQL in batches by a timer, never on the
 * request path (`BufferedPostgresWriter`: a bounded buffer, then a spill file while PostgreSQL is
 * away, written on recovery). Delivery is at least once; the event id is the primary key and
 * inserts skip ids already there, so nothing is counted twice. With governance on Redis the events
 * do not pass through this process's buffer at all: they wait in the Redis outbox, kept by the
 * settle script itself, and the outbox's drain hands them to `write`.
 *
 * @example
 * const sink = new PostgresUsageSink({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 */
export class PostgresUsageSink implements UsageSink {
  readonly kind = "postgres" as const;
  readonly #pool: Pool;
  readonly #table: string;
  readonly #writer: BufferedPostgresWriter<UsageEvent>;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresUsageSinkOptions) {
    this.#pool = options.pool;
    this.#table = options.table ?? "conduit_usage_events";
    if (!/^[a-z_][a-z0-9_]*$/i.test(this.#table)) throw new Error(`governance: invalid table name ${this.#table}`);
    this.#writer = new BufferedPostgresWriter({
      ...options,
      what: "usage",
      dependency: "usage history",
      spillFile: options.spillFile ?? "conduit-usage-spill.ndjson",
      insert: async (events) => {
        await this.#ensureTable();
        await insertUsageRows(this.#pool, this.#table, events);
      },
    });
  }

  /** Events not yet in PostgreSQL (buffered in memory; the spill file aside). */
  get pending(): number {
    return this.#writer.pending;
  }

  append(event: UsageEvent): void {
    this.#writer.append(event);
  }

  #ensureTable(): Promise<void> {
    this.#ready ??= migrateUsageTable(this.#pool, this.#table).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Writes the buffer (and, first, a spill file left by an outage). One flush at a time. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * Writes these events now (the Redis outbox's drain): each id once, however often it comes.
   * Rejects while PostgreSQL is away — they wait in the outbox, not here.
   */
  write(events: UsageEvent[]): Promise<void> {
    return this.#writer.write(events);
  }

  async query(query: UsageQuery): Promise<UsageRow[]> {
    await this.#ensureTable();
    return queryUsage(this.#pool, this.#table, query);
  }

  async dailyUsage(range: { from: Date; to: Date }): Promise<DailyUsageRow[]> {
    await this.#ensureTable();
    return dailyUsageRows(this.#pool, this.#table, range);
  }

  /** `ok`, `degraded` while events written during an outage wait, `down` when PostgreSQL does not answer; never required. */
  health(): Promise<DependencyHealth> {
    return this.#writer.health();
  }

  /** Writes what is buffered; with PostgreSQL away, the rest goes to the spill file for the next process. */
  close(): Promise<void> {
    return this.#writer.close();
  }
}
