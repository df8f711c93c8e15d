import { appendFile, readFile, rename, unlink } from "node:fs/promises";
import { type DependencyHealth, storeCall } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import {
  type DailyUsageRow,
  type UsageEvent,
  type UsageGroupBy,
  type UsageQuery,
  type UsageRow,
  type UsageSink,
  cacheHitRatio,
} from "./usage-event.js";

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

const COLUMNS = [
  "id",
  "time",
  "key_id",
  "team",
  "user_id",
  "model",
  "target",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cost_usd",
  "status",
  "latency_ms",
  "kind",
  "server",
  "tool",
  "estimated",
  "cache_write_1h_tokens",
  "reasoning_tokens",
  "web_search_requests",
  "saved_usd",
] as const;

/** Columns added after the table's first release: created with it now, added to an older table on first use. */
const ADDED_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ["kind", "text NOT NULL DEFAULT 'model'"],
  ["server", "text"],
  ["tool", "text"],
  ["estimated", "boolean NOT NULL DEFAULT false"],
  ["cache_write_1h_tokens", "bigint NOT NULL DEFAULT 0"],
  ["reasoning_tokens", "bigint NOT NULL DEFAULT 0"],
  ["web_search_requests", "bigint NOT NULL DEFAULT 0"],
  ["saved_usd", "numeric(24, 12) NOT NULL DEFAULT 0"],
];

const GROUP_COLUMNS: Record<UsageGroupBy, string> = {
  key: "key_id",
  team: "coalesce(team, '')",
  user: "coalesce(user_id, '')",
  model: "model",
  day: "to_char(time at time zone 'UTC', 'YYYY-MM-DD')",
};

function rowOf(event: UsageEvent): unknown[] {
  return [
    event.id,
    event.time,
    event.key,
    event.team ?? null,
    event.user ?? null,
    event.model,
    event.target ?? null,
    event.inputTokens,
    event.outputTokens,
    event.cacheReadTokens,
    event.cacheWriteTokens,
    event.costUsd.toFixed(12),
    event.status,
    Math.round(event.latencyMs),
    event.kind ?? "model",
    event.server ?? null,
    event.tool ?? null,
    event.estimated === true,
    event.cacheWrite1hTokens ?? 0,
    event.reasoningTokens ?? 0,
    event.webSearchRequests ?? 0,
    (event.savedUsd ?? 0).toFixed(12),
  ];
}

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
  readonly #spillFile: string;
  readonly #batchSize: number;
  readonly #onWarning: (message: string) => void;
  readonly #waitingElsewhere: () => number;
  #buffer: UsageEvent[] = [];
  /** True until a spill file (this process's or a previous one's) has been replayed. */
  #spilled = true;
  #spilling: Promise<void> = Promise.resolve();
  #flushing: Promise<void> | undefined;
  #ready: Promise<void> | undefined;
  #healthy = true;
  readonly #timer: NodeJS.Timeout;

  constructor(options: PostgresUsageSinkOptions) {
    this.#pool = options.pool;
    this.#table = options.table ?? "conduit_usage_events";
    if (!/^[a-z_][a-z0-9_]*$/i.test(this.#table)) throw new Error(`governance: invalid table name ${this.#table}`);
    this.#maxBuffer = options.maxBuffer ?? 10_000;
    this.#spillFile = options.spillFile ?? "conduit-usage-spill.ndjson";
    this.#batchSize = options.batchSize ?? 500;
    this.#onWarning = options.onWarning ?? (() => {});
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
      this.#spilled = true;
      const lines = overflow.map((item) => `${JSON.stringify(item)}\n`).join("");
      this.#spilling = this.#spilling
        .then(() => appendFile(this.#spillFile, lines))
        .catch((error: Error) => {
          this.#onWarning(`governance: usage spill file unwritable (${error.message}); ${overflow.length} events kept in memory`);
          this.#buffer.unshift(...overflow);
        });
    }
  }

  #ensureTable(): Promise<void> {
    this.#ready ??= this.#pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.#table} (
          id text PRIMARY KEY, time timestamptz NOT NULL, key_id text NOT NULL, team text, user_id text,
          model text NOT NULL, target text, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
          cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_usd numeric(24, 12) NOT NULL,
          status integer NOT NULL, latency_ms integer NOT NULL, ${ADDED_COLUMNS.map(([name, type]) => `${name} ${type}`).join(", ")})`,
      )
      .then(() => this.#pool.query(`CREATE INDEX IF NOT EXISTS ${this.#table}_time ON ${this.#table} (time)`))
      .then(() => this.#addMissingColumns())
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  /** A table created before a column of `ADDED_COLUMNS` existed gets it (looked up first: ALTER TABLE locks it even when there is nothing to do). */
  async #addMissingColumns(): Promise<void> {
    const { rows } = await this.#pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
      [this.#table.toLowerCase()],
    );
    const present = new Set(rows.map((row) => row.column_name));
    const missing = ADDED_COLUMNS.filter(([name]) => !present.has(name));
    if (missing.length > 0)
      await this.#pool.query(
        `ALTER TABLE ${this.#table} ${missing.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(", ")}`,
      );
  }

  async #insert(events: UsageEvent[]): Promise<void> {
    await this.#ensureTable();
    const values: unknown[] = [];
    const tuples = events.map((event, row) => {
      values.push(...rowOf(event));
      return `(${COLUMNS.map((_, column) => `$${row * COLUMNS.length + column + 1}`).join(", ")})`;
    });
    await this.#pool.query(
      `INSERT INTO ${this.#table} (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT (id) DO NOTHING`,
      values,
    );
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
      if (this.#spilled) await this.#replaySpill();
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

  async #replaySpill(): Promise<void> {
    // Cleared before anything is awaited: an overflow spilled from now on sets it again, so its
    // lines (in the file renamed below, or in a new one) are replayed now or by the next flush.
    // Cleared after the rename, an overflow appended between the two was left in a file nobody read.
    this.#spilled = false;
    await this.#spilling;
    const replaying = `${this.#spillFile}.replaying`;
    try {
      await rename(this.#spillFile, replaying).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    } catch (error) {
      this.#spilled = true;
      throw error;
    }
    let text: string;
    try {
      text = await readFile(replaying, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return;
    }
    const events = text
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as UsageEvent);
    try {
      for (let start = 0; start < events.length; start += this.#batchSize) await this.#insert(events.slice(start, start + this.#batchSize));
    } catch (error) {
      // Back to the spill file (ahead of anything spilled meanwhile); ids make the replayed part harmless.
      this.#spilled = true;
      await appendFile(this.#spillFile, text);
      await unlink(replaying);
      throw error;
    }
    await unlink(replaying);
  }

  async query(query: UsageQuery): Promise<UsageRow[]> {
    await this.#ensureTable();
    const group = GROUP_COLUMNS[query.groupBy];
    const result = await this.#pool.query(
      `SELECT ${group} AS "group", count(*) AS requests, sum(input_tokens) AS input, sum(output_tokens) AS output,
        sum(cache_read_tokens) AS cache_read, sum(cache_write_tokens) AS cache_write, sum(cost_usd) AS cost,
        sum(saved_usd) AS saved, count(*) FILTER (WHERE estimated) AS estimated
       FROM ${this.#table} WHERE time >= $1 AND time < $2 GROUP BY 1 ORDER BY 1`,
      [query.from.toISOString(), query.to.toISOString()],
    );
    return result.rows.map((row: Record<string, string>) => ({
      group: row.group ?? "",
      requests: Number(row.requests),
      inputTokens: Number(row.input),
      outputTokens: Number(row.output),
      cacheReadTokens: Number(row.cache_read),
      cacheWriteTokens: Number(row.cache_write),
      costUsd: Number(row.cost),
      cacheHitRatio: cacheHitRatio({
        inputTokens: Number(row.input),
        cacheReadTokens: Number(row.cache_read),
        cacheWriteTokens: Number(row.cache_write),
      }),
      savedUsd: Number(row.saved),
      estimatedRequests: Number(row.estimated),
    }));
  }

  async dailyUsage(range: { from: Date; to: Date }): Promise<DailyUsageRow[]> {
    await this.#ensureTable();
    // Days in UTC, as the vendors' daily buckets are; tool calls carry no tokens of a vendor.
    const result = await this.#pool.query(
      `SELECT to_char(time at time zone 'UTC', 'YYYY-MM-DD') AS day, coalesce(target, model) AS target, count(*) AS requests,
        sum(input_tokens) AS input, sum(output_tokens) AS output, sum(cache_read_tokens) AS cache_read,
        sum(cache_write_tokens) AS cache_write, sum(cost_usd) AS cost
       FROM ${this.#table} WHERE time >= $1 AND time < $2 AND kind = 'model' GROUP BY 1, 2 ORDER BY 1, 2`,
      [range.from.toISOString(), range.to.toISOString()],
    );
    return result.rows.map((row: Record<string, string>) => ({
      day: row.day ?? "",
      target: row.target ?? "",
      requests: Number(row.requests),
      inputTokens: Number(row.input),
      outputTokens: Number(row.output),
      cacheReadTokens: Number(row.cache_read),
      cacheWriteTokens: Number(row.cache_write),
      costUsd: Number(row.cost),
    }));
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

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush().catch(() => undefined);
  }
}
