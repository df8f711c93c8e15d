import { type DependencyHealth, storeCall } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import { NdjsonSpill } from "./ndjson-spill.js";

/** The delivery options the PostgreSQL sinks (usage history, audit log) share. */
export interface BufferedDeliveryOptions {
  /** Events held in memory while PostgreSQL is away; past it they spill to `spillFile`. Default 10 000. */
  maxBuffer?: number;
  /** NDJSON file the overflow goes to, replayed on recovery (each sink names its default). */
  spillFile?: string;
  batchSize?: number;
  flushIntervalMs?: number;
  /** Events waiting for this table elsewhere (a Redis outbox, after a failed write): counted in `bufferedEvents`. */
  waitingElsewhere?: () => number;
  onWarning?: (message: string) => void;
}

export interface BufferedPostgresWriterOptions<T> extends BufferedDeliveryOptions {
  pool: Pool;
  /** What the events are, for warnings and health ("usage", "audit"). */
  what: string;
  /** The dependency's name on the health report ("usage history", "audit log"). */
  dependency: string;
  spillFile: string;
  /** Writes one batch, in order; rejects while PostgreSQL refuses. */
  insert: (events: T[]) => Promise<void>;
}

/** A health check waits this long for PostgreSQL's `SELECT 1`. */
const HEALTH_DEADLINE_MS = 1_000;

/**
 * The delivery half of a PostgreSQL sink: events appended off the request path and written in
 * batches by a timer, in the order they came. While PostgreSQL is away they wait in a bounded
 * buffer, then in an NDJSON spill file (`NdjsonSpill`), written on recovery before anything newer;
 * a shutdown during an outage leaves the rest in the file for the next process. Warns once when
 * PostgreSQL goes away and once when it is back. Delivery is at least once: the sink's insert
 * skips ids it already holds.
 */
export class BufferedPostgresWriter<T> {
  readonly #options: BufferedPostgresWriterOptions<T>;
  readonly #spill: NdjsonSpill<T>;
  readonly #maxBuffer: number;
  readonly #batchSize: number;
  readonly #onWarning: (message: string) => void;
  readonly #timer: NodeJS.Timeout;
  #buffer: T[] = [];
  #flushing: Promise<void> | undefined;
  #healthy = true;

  constructor(options: BufferedPostgresWriterOptions<T>) {
    this.#options = options;
    this.#maxBuffer = options.maxBuffer ?? 10_000;
    this.#batchSize = options.batchSize ?? 500;
    this.#onWarning = options.onWarning ?? (() => {});
    this.#spill = new NdjsonSpill({ file: options.spillFile, what: options.what, onWarning: this.#onWarning });
    this.#timer = setInterval(() => void this.flush().catch(() => undefined), options.flushIntervalMs ?? 500);
    this.#timer.unref();
  }

  /** Events not yet in PostgreSQL (buffered in memory; the spill file aside). */
  get pending(): number {
    return this.#buffer.length;
  }

  append(event: T): void {
    this.#buffer.push(event);
    if (this.#buffer.length > this.#maxBuffer) {
      // The oldest go to the file: replayed first on recovery, so the order they came in holds.
      const overflow = this.#buffer.splice(0, this.#buffer.length - Math.floor(this.#maxBuffer / 2));
      void this.#spill.spill(overflow, (kept) => this.#buffer.unshift(...kept));
    }
  }

  /** Writes the buffer (and, first, a spill file left by an outage). One flush at a time. */
  flush(): Promise<void> {
    this.#flushing ??= this.#tracked(async () => {
      if (this.#spill.mayHoldItems) await this.#spill.replay(this.#options.insert, this.#batchSize);
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.slice(0, this.#batchSize);
        await this.#options.insert(batch);
        this.#buffer.splice(0, batch.length);
      }
    }).finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /** Writes events delivered by someone else (a Redis outbox's drain) now, in order; rejects while PostgreSQL refuses. */
  write(events: T[]): Promise<void> {
    return this.#tracked(async () => {
      for (let start = 0; start < events.length; start += this.#batchSize)
        await this.#options.insert(events.slice(start, start + this.#batchSize));
    });
  }

  async #tracked(write: () => Promise<void>): Promise<void> {
    const { what } = this.#options;
    try {
      await write();
      if (!this.#healthy) this.#onWarning(`governance: PostgreSQL is back; buffered ${what} events written`);
      this.#healthy = true;
    } catch (error) {
      if (this.#healthy) this.#onWarning(`governance: PostgreSQL unavailable, ${what} events buffered (${(error as Error).message})`);
      this.#healthy = false;
      throw error;
    }
  }

  /**
   * `SELECT 1` within a second: `ok`, `degraded` while events written during an outage are still
   * buffered, `down` when PostgreSQL does not answer. Never required (requests go on; events wait
   * in memory and the spill file), and always with the count waiting.
   */
  async health(): Promise<DependencyHealth> {
    const { pool, what, dependency } = this.#options;
    const started = performance.now();
    const waitingNow = () => this.#buffer.length + (this.#options.waitingElsewhere?.() ?? 0);
    const counted = (count: number) => `${count} ${what} event${count === 1 ? "" : "s"} buffered`;
    try {
      await storeCall(dependency, () => pool.query("SELECT 1"), HEALTH_DEADLINE_MS);
    } catch {
      const waiting = waitingNow();
      return {
        status: "down",
        required: false,
        message: `PostgreSQL unreachable; ${counted(waiting)}`,
        details: { bufferedEvents: waiting },
      };
    }
    const waiting = waitingNow();
    return {
      status: waiting > 0 && !this.#healthy ? "degraded" : "ok",
      required: false,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      ...(waiting > 0 ? { message: counted(waiting) } : {}),
      details: { bufferedEvents: waiting },
    };
  }

  /**
   * Writes what is buffered; with PostgreSQL still away, the rest goes to the spill file, which
   * the next process on it replays first: a shutdown during an outage loses nothing.
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
