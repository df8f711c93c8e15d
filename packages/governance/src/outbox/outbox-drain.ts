import type { OutboxEntry, RedisOutbox } from "./redis-outbox.js";

export interface OutboxDrainOptions {
  outbox: RedisOutbox;
  /** The stream drained (`usage`; an audit log its own). */
  stream: string;
  /**
   * Tags this stream writes under besides governance's own (a stream with one fixed tag, e.g.
   * `{conduit:gov:audit}`): the lost-call sweep visits them too, so a dead writer's records are drained.
   */
  standingTags?: readonly string[];
  /**
   * The stream writes under its standing tags alone (the audit log's one tag): the sweep visits
   * only those, not every tag of governance's keys and teams.
   */
  standingTagsOnly?: boolean;
  /**
   * Writes records for good (PostgreSQL): resolves once they are committed, and writes each id at
   * most once however often it is given (an insert that skips known ids). Rejects when it cannot:
   * the records stay in the outbox and are tried again.
   */
  write: (entries: OutboxEntry[]) => Promise<void>;
  /** How often this process drains the tags it put records in (default 500 ms). */
  intervalMs?: number;
  /** Records claimed per tag at a time (default 500). */
  batchSize?: number;
  /** How long a claimed record stays hidden from other drainers (default 30 s): past it, a dead drainer's claim is taken over. */
  visibilityMs?: number;
  /** Longest wait between attempts while the writer refuses (default 5 s). */
  maxRetryDelayMs?: number;
}

/** Tags drained together: bounds what one drain holds in memory (tags × batch). */
const TAGS_PER_ROUND = 20;

/**
 * Empties outboxes into their durable home. Each process drains the tags it put records in (told
 * by the outbox, no Redis scan) every `intervalMs`; any process drains any tag it is handed
 * (`drainTags`: the lost-call sweeper hands it the tags with records nobody drained, such as those of a
 * process that died). A record is claimed, written, then acknowledged: removed only after the
 * write committed. A drainer that dies in between leaves it claimed, and it is taken over after
 * `visibilityMs`; written twice then, it counts once (the writer skips known ids).
 *
 * @example
 * const drain = new OutboxDrain({ outbox, stream: "usage", write: (entries) => sink.write(entries.map((entry) => JSON.parse(entry.json))) });
 */
export class OutboxDrain {
  readonly stream: string;
  readonly standingTags: readonly string[];
  readonly standingTagsOnly: boolean;
  readonly #outbox: RedisOutbox;
  readonly #write: OutboxDrainOptions["write"];
  readonly #intervalMs: number;
  readonly #batchSize: number;
  readonly #visibilityMs: number;
  readonly #maxRetryDelayMs: number;
  /** tag → the generation of its last push: a push during a drain keeps the tag for the next one. */
  readonly #dirty = new Map<string, number>();
  /** tag → records a failed write left waiting there. */
  readonly #waiting = new Map<string, number>();
  #generation = 0;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(options: OutboxDrainOptions) {
    this.stream = options.stream;
    this.standingTags = options.standingTags ?? [];
    this.standingTagsOnly = options.standingTagsOnly === true;
    this.#outbox = options.outbox;
    this.#write = options.write;
    this.#intervalMs = options.intervalMs ?? 500;
    this.#batchSize = options.batchSize ?? 500;
    this.#visibilityMs = options.visibilityMs ?? 30_000;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.#delayMs = this.#intervalMs;
    options.outbox.onPush((tag, stream) => {
      if (stream === this.stream) this.markDirty(tag);
    });
  }

  /** Records this process knows are waiting because their write failed (a health figure). */
  get pending(): number {
    let total = 0;
    for (const count of this.#waiting.values()) total += count;
    return total;
  }

  /** A tag with records to drain: drained on the next tick. */
  markDirty(tag: string): void {
    this.#generation += 1;
    this.#dirty.set(tag, this.#generation);
    this.#schedule();
  }

  /** Drains the tags this process put records in; rejects when the writer does (they stay dirty). */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flushOnce(): Promise<void> {
    const marked = [...this.#dirty];
    if (marked.length === 0) return;
    await this.drainTags(marked.map(([tag]) => tag));
    for (const [tag, generation] of marked) if (this.#dirty.get(tag) === generation) this.#dirty.delete(tag);
  }

  /**
   * Claims, writes and acknowledges every record visible in these tags' outboxes (any tag: a dead
   * process's too). Resolves with the number written; rejects when the writer does, having handed
   * the claims back so the next attempt need not wait out the visibility timeout.
   */
  async drainTags(tags: readonly string[]): Promise<number> {
    let written = 0;
    for (let start = 0; start < tags.length; start += TAGS_PER_ROUND) {
      let round = tags.slice(start, start + TAGS_PER_ROUND);
      while (round.length > 0) {
        const claims = await Promise.all(
          round.map((tag) => this.#outbox.claim(tag, this.stream, { max: this.#batchSize, visibilityMs: this.#visibilityMs })),
        );
        const entries = claims.flat();
        if (entries.length === 0) break;
        try {
          await this.#write(entries);
        } catch (error) {
          for (const [index, tag] of round.entries()) this.#waiting.set(tag, (claims[index] as OutboxEntry[]).length);
          await Promise.all(
            round.map((tag, index) =>
              this.#outbox
                .release(
                  tag,
                  this.stream,
                  (claims[index] as OutboxEntry[]).map((entry) => entry.id),
                )
                .catch(() => undefined),
            ),
          );
          throw error;
        }
        await Promise.all(
          round.map((tag, index) =>
            this.#outbox.ack(
              tag,
              this.stream,
              (claims[index] as OutboxEntry[]).map((entry) => entry.id),
            ),
          ),
        );
        for (const tag of round) this.#waiting.delete(tag);
        written += entries.length;
        // A full claim may have left more behind.
        round = round.filter((_, index) => (claims[index] as OutboxEntry[]).length >= this.#batchSize);
      }
    }
    return written;
  }

  /** How many records each tag's outbox shows a drainer now (claimed ones are hidden). */
  visible(tags: readonly string[]): Promise<number[]> {
    return this.#outbox.visible(tags, this.stream);
  }

  /** How many records each tag's outbox holds, claimed or not. */
  sizes(tags: readonly string[]): Promise<number[]> {
    return this.#outbox.size(tags, this.stream);
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().then(
        () => {
          this.#delayMs = this.#intervalMs;
          if (this.#dirty.size > 0) this.#schedule();
        },
        () => {
          this.#delayMs = Math.min(this.#delayMs * 2, this.#maxRetryDelayMs);
          this.#schedule();
        },
      );
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** Stops the timer after one last drain; what it cannot write stays in Redis for any other process. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#flushing?.catch(() => undefined);
    await this.flush().catch(() => undefined);
  }
}
