import { randomUUID } from "node:crypto";
import type { OutboxDrain } from "../outbox/outbox-drain.js";
import { lostCallEvent, reservationOfCall } from "../store/open-call.js";
import type { RedisOpenCalls } from "../store/redis-open-calls.js";
import type { RedisGovernanceStore } from "../store/redis-store.js";
import type { UsageEvent, UsageSink } from "../usage/usage-event.js";

export interface LostCallSweeperOptions {
  store: RedisGovernanceStore;
  openCalls: RedisOpenCalls;
  /** Where a swept call's usage event goes when the store keeps none (no durable history): this process's sink. */
  usage: UsageSink;
  /** Outbox drains handed the tags whose records nobody is draining (a dead process's). */
  drains?: readonly OutboxDrain[];
  /** How often some process sweeps (default 10 s): each process asks, one per period does it. */
  intervalMs?: number;
  /** Calls swept per tag and pass (default 500; the rest next pass). */
  batchSize?: number;
  /** Told of every swept call (metrics), like the gate's `onUsage`. */
  onUsage?: (event: UsageEvent) => void;
  onWarning?: (message: string) => void;
}

/** What one pass did. */
export interface SweepReport {
  /** Calls settled at their reservation (their process was lost). */
  swept: number;
  /** Records written from outboxes no live process was draining. */
  written: number;
}

/**
 * Settles the calls of processes that died. Every admitted call's record stays beside its lease
 * until its settlement; when the lease expires (the call's own timeout plus a margin, renewed
 * while it runs) and no settlement came, its process was lost — killed, or cut from the store
 * for longer than that. The sweeper then settles it as if it used its whole reservation (upstream
 * may have served and charged it: the rule of a client gone mid-stream), through the store's own
 * settle script, whose lease guard makes it apply exactly once against any other sweeper and
 * any late settlement; and it writes the call's usage event (status 499, `estimated`), so spend
 * and history agree. It also drains the outboxes no live process is draining.
 *
 * Any process may sweep; each asks every `intervalMs` and one per period does it.
 *
 * @example
 * const sweeper = new LostCallSweeper({ store, openCalls: new RedisOpenCalls({ redis }), usage, drains: [usageDrain] });
 * sweeper.start();
 */
export class LostCallSweeper {
  readonly #options: LostCallSweeperOptions;
  readonly #owner = randomUUID();
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<SweepReport> | undefined;
  #failing = false;

  constructor(options: LostCallSweeperOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? 10_000;
  }

  /** Asks for a sweep every `intervalMs`. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Sweeps when this period's turn is this process's; never rejects. */
  async tick(): Promise<SweepReport | undefined> {
    try {
      if (this.#running || !(await this.#options.openCalls.takeTurn(this.#owner, this.#intervalMs))) return undefined;
      const report = await this.sweep();
      if (this.#failing) this.#options.onWarning?.("governance: the lost-call sweep works again");
      this.#failing = false;
      return report;
    } catch (error) {
      if (!this.#failing)
        this.#options.onWarning?.(`governance: the lost-call sweep failed (${(error as Error).message}); retried next period`);
      this.#failing = true;
      return undefined;
    }
  }

  /** One pass, whoever else sweeps (tests; `tick` takes turns). Rejects when the store does. */
  sweep(): Promise<SweepReport> {
    this.#running ??= this.#sweepOnce().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #sweepOnce(): Promise<SweepReport> {
    const { store, openCalls, usage, drains = [] } = this.#options;
    const now = Date.now();
    const tags = await openCalls.tags();
    const counts = await openCalls.dueCounts(tags, now);
    let swept = 0;
    for (const [index, tag] of tags.entries()) {
      if (counts[index] === 0) continue;
      for (const { leaseId, call } of await openCalls.due(tag, now, this.#options.batchSize ?? 500)) {
        if (!call) {
          // Nothing is guessed: its reservation stays held, as it did before calls were recorded.
          this.#options.onWarning?.(`governance: an unreadable call record (lease ${leaseId}) was dropped unswept`);
          await openCalls.forget(tag, leaseId);
          continue;
        }
        const event = lostCallEvent(leaseId, call);
        if (!(await store.settleLost(reservationOfCall(leaseId, call), event, now))) continue;
        swept += 1;
        if (!store.keepsUsageEvents) usage.append(event);
        this.#options.onUsage?.(event);
      }
    }
    let written = 0;
    for (const drain of drains) {
      const visited = drain.standingTagsOnly ? drain.standingTags : [...new Set([...tags, ...drain.standingTags])];
      const visible = await drain.visible(visited);
      const waiting = visited.filter((_, index) => (visible[index] ?? 0) > 0);
      if (waiting.length > 0) written += await drain.drainTags(waiting);
    }
    await openCalls.dropEmptyRetired(tags, async (retired) => {
      // A stream that writes under its standing tags alone has nothing under a retired key's or team's tag.
      const sizes = await Promise.all(drains.filter((drain) => !drain.standingTagsOnly).map((drain) => drain.sizes(retired)));
      return retired.map((_, index) => sizes.reduce((sum, each) => sum + (each[index] ?? 0), 0));
    });
    return { swept, written };
  }

  /** Stops asking; a pass under way finishes. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }
}
