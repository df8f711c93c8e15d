/**
 * Messages (JSON-RPC texts) waiting for the SSE stream that carries them, in order. Bounded: past
 * `maxQueued` the oldest notification goes (a client that stopped reading loses old
 * notifications, never the process's memory); the response a stream ends with is never dropped.
 */
export class MessageChannel {
  readonly #queue: string[] = [];
  readonly #maxQueued: number;
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(maxQueued = 1_000) {
    this.#maxQueued = maxQueued;
  }

  get closed(): boolean {
    return this.#closed;
  }

  push(message: string): void {
    if (this.#closed) return;
    this.#queue.push(message);
    if (this.#queue.length > this.#maxQueued) this.#queue.shift();
    this.#signal();
  }

  /** The last message: queued whatever the bound, then the channel closes. */
  finish(message?: string): void {
    if (this.#closed) return;
    if (message !== undefined) this.#queue.push(message);
    this.close();
  }

  close(): void {
    this.#closed = true;
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The next message; undefined once closed and drained, or when `timeoutMs` passes first ("idle"). */
  async next(timeoutMs: number): Promise<string | "idle" | undefined> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return queued;
    if (this.#closed) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const woken = await new Promise<boolean>((resolve) => {
      this.#wake = () => resolve(true);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    clearTimeout(timer);
    if (!woken) {
      this.#wake = undefined;
      return "idle";
    }
    return this.#queue.shift() ?? (this.#closed ? undefined : "idle");
  }
}
