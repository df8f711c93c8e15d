interface Pending<T> {
  item: T;
  pulled: () => void;
}

/**
 * A single-consumer async queue with backpressure: `push` resolves once the consumer
 * pulled the item, so a producer that awaits its writes never holds more than one item
 * per write in memory, whatever the speed of the client.
 *
 * @example
 * const queue = new AsyncQueue<string>();
 * void (async () => { await queue.push("a"); queue.close(); })();
 * for await (const item of queue) console.log(item);
 */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffer: Pending<T>[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private readonly onCancel: (() => void) | undefined;

  /** `onCancel` runs when the consumer stops early (`return()`), e.g. the client went away. */
  constructor(options: { onCancel?: () => void } = {}) {
    this.onCancel = options.onCancel;
  }

  /** Items buffered and not yet pulled. */
  get size(): number {
    return this.buffer.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Resolves when the item was pulled; after close the item is dropped and it resolves at once. */
  push(item: T): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: item, done: false });
      return Promise.resolve();
    }
    return new Promise((pulled) => this.buffer.push({ item, pulled }));
  }

  /** No more items; those buffered are still delivered. */
  close(): void {
    this.closed = true;
    if (this.buffer.length === 0 && this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  /** Ends with an error: the consumer gets it after the buffered items. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.failure = { error };
    this.closed = true;
    if (this.buffer.length === 0 && this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      // Resolving with a rejected promise makes the pending next() reject.
      (resolve as (value: unknown) => void)(Promise.reject(error));
    }
  }

  /** Ends now: buffered items are dropped and their writers released. */
  cancel(): void {
    this.closed = true;
    this.failure = undefined;
    for (const pending of this.buffer.splice(0)) pending.pulled();
    this.close();
  }

  next(): Promise<IteratorResult<T>> {
    const pending = this.buffer.shift();
    if (pending) {
      pending.pulled();
      return Promise.resolve({ value: pending.item, done: false });
    }
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    const early = !this.closed || this.buffer.length > 0;
    this.cancel();
    if (early) this.onCancel?.();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
