import { NdjsonSpill } from "../delivery/ndjson-spill.js";
import type { Reservation, SettleInput } from "../store/governance-store.js";
import type { UsageEvent } from "../usage/usage-event.js";

/** A settlement (or a release: the reservation's tokens, no dollars) the store has not confirmed yet. */
export interface PendingSettlement {
  reservation: Reservation;
  actual: SettleInput;
  /** The usage event the store keeps with it (a store with an outbox): it waits, and lands, with its settlement. */
  event?: UsageEvent;
}

export interface PendingSettlementsOptions {
  /** Applies one settlement to the store; idempotent (the store's lease guard), so a retry is safe. */
  apply: (settlement: PendingSettlement) => Promise<unknown>;
  /** Settlements held in memory while the store is away; past it the oldest half spill to `spillFile`. Default 10 000. */
  maxPending?: number;
  /** NDJSON file the overflow (and what is left at `close`) goes to, replayed on recovery. Default `./conduit-settlement-spill.ndjson`. */
  spillFile?: string;
  onWarning?: (message: string) => void;
  /** First retry delay; doubled per failure up to `retryMaxMs` (defaults 50 ms and 1 s). */
  retryMinMs?: number;
  retryMaxMs?: number;
}

/**
 * Settlements survive a lost store connection (a restart, a Sentinel or Cluster failover): one
 * that fails waits here and is retried with backoff until the store answers, in arrival order,
 * each with its reservation's lease id so a retry whose first attempt did land changes nothing.
 * While any wait, new ones queue behind them without trying (no 1 s timeout per call during an
 * outage). Bounded like the usage history: past `maxPending` the oldest spill to an NDJSON file,
 * replayed on recovery — also a file a previous process left.
 *
 * @example
 * const pending = new PendingSettlements({ apply: ({ reservation, actual }) => store.settle(reservation, actual) });
 * await pending.submit({ reservation, actual }); // never rejects
 */
export class PendingSettlements {
  readonly #apply: PendingSettlementsOptions["apply"];
  readonly #maxPending: number;
  readonly #spill: NdjsonSpill<PendingSettlement>;
  readonly #onWarning: (message: string) => void;
  readonly #retryMinMs: number;
  readonly #retryMaxMs: number;
  #queue: PendingSettlement[] = [];
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  #healthy = true;
  #closed = false;

  constructor(options: PendingSettlementsOptions) {
    this.#apply = options.apply;
    this.#maxPending = options.maxPending ?? 10_000;
    this.#onWarning = options.onWarning ?? (() => {});
    this.#spill = new NdjsonSpill({
      file: options.spillFile ?? "conduit-settlement-spill.ndjson",
      what: "settlement",
      onWarning: this.#onWarning,
    });
    this.#retryMinMs = options.retryMinMs ?? 50;
    this.#retryMaxMs = options.retryMaxMs ?? 1_000;
    this.#delayMs = this.#retryMinMs;
    if (this.#spill.exists()) this.#schedule();
  }

  /** Settlements not yet applied (in memory; a spill file aside). */
  get size(): number {
    return this.#queue.length;
  }

  /** Applies now when nothing waits, else queues behind what does; resolves either way, never rejects. */
  async submit(settlement: PendingSettlement): Promise<void> {
    if (this.#queue.length === 0 && !this.#draining && !this.#closed) {
      try {
        await this.#apply(settlement);
        return;
      } catch {
        // Kept below and retried: the store is away, or the answer was lost after it applied.
      }
    }
    this.#enqueue(settlement);
  }

  /** Applies what waits (and a spill file) now; rejects when the store still refuses. */
  drain(): Promise<void> {
    this.#draining ??= this.#drainOnce().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  /** One last attempt, then whatever is left goes to the spill file for the next process. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.drain().catch(() => undefined);
    if (this.#queue.length > 0) await this.#spill.spill(this.#queue.splice(0), (kept) => this.#queue.unshift(...kept));
    await this.#spill.settled();
  }

  #enqueue(settlement: PendingSettlement): void {
    if (this.#healthy) {
      this.#healthy = false;
      this.#onWarning("governance: the key store is unavailable; settlements are queued and applied when it is back");
    }
    this.#queue.push(settlement);
    if (this.#queue.length > this.#maxPending)
      void this.#spill.spill(this.#queue.splice(0, this.#queue.length - Math.floor(this.#maxPending / 2)), (kept) =>
        this.#queue.unshift(...kept),
      );
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.drain().catch(() => {
        this.#delayMs = Math.min(this.#delayMs * 2, this.#retryMaxMs);
        this.#schedule();
      });
    }, this.#delayMs);
    this.#timer.unref();
  }

  async #drainOnce(): Promise<void> {
    // Applied ahead of what is queued, one at a time; each is idempotent, so a replay cut short and redone is harmless.
    if (this.#spill.mayHoldItems)
      await this.#spill.replay(async ([settlement]) => {
        await this.#apply(settlement as PendingSettlement);
      }, 1);
    while (this.#queue.length > 0) {
      await this.#apply(this.#queue[0] as PendingSettlement);
      this.#queue.shift();
    }
    this.#delayMs = this.#retryMinMs;
    if (!this.#healthy) this.#onWarning("governance: the key store is back; queued settlements applied");
    this.#healthy = true;
  }
}
