import { performance } from "./clock.js";

/** One pending deadline; `remove` takes it out once its work settled. */
export interface Deadline {
  readonly at: number;
  readonly onExpire: () => void;
  previous: Deadline | undefined;
  next: Deadline | undefined;
}

/**
 * Request timeouts without a Node timer per request. Every request of a server has the
 * same timeout, so deadlines arrive in start order: a linked list in that order and one
 * timer, armed for the oldest deadline, serve them all. A settled request leaves the list
 * in O(1). Times are `performance.now()` milliseconds (monotonic).
 */
export class DeadlineQueue {
  private head: Deadline | undefined;
  private tail: Deadline | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** Calls `onExpire` once `timeoutMs` after `startedAt`, unless removed first. */
  add(startedAt: number, onExpire: () => void): Deadline {
    const deadline: Deadline = { at: startedAt + this.timeoutMs, onExpire, previous: this.tail, next: undefined };
    if (this.tail) this.tail.next = deadline;
    else this.head = deadline;
    this.tail = deadline;
    if (this.timer === undefined) this.arm(deadline.at);
    return deadline;
  }

  remove(deadline: Deadline): void {
    const { previous, next } = deadline;
    if (previous) previous.next = next;
    else if (this.head === deadline) this.head = next;
    else return; // already removed
    if (next) next.previous = previous;
    else this.tail = previous;
    deadline.previous = undefined;
    deadline.next = undefined;
  }

  get size(): number {
    let count = 0;
    for (let deadline = this.head; deadline; deadline = deadline.next) count++;
    return count;
  }

  /** The timer only ever waits for the head; removals never touch it (it re-arms when it fires). */
  private arm(at: number): void {
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.ceil(at - performance.now())));
    // Pending requests keep the server alive, never a timeout on its own.
    // Web runtimes (Workers, Deno) return a number here: nothing to unref.
    (this.timer as { unref?: () => unknown }).unref?.();
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.at <= now) {
      const deadline = this.head;
      this.remove(deadline);
      deadline.onExpire();
    }
    if (this.head) this.arm(this.head.at);
  }
}
