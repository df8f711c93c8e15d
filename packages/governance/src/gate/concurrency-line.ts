interface Waiter {
  wake: () => void;
}

/**
 * The FIFO line of calls waiting for a concurrency slot of one key or team, in this process.
 * Only the head retries (on a local release, or every `pollMs` for releases in other processes),
 * so waiters are admitted in arrival order and a burst costs one Redis call per poll, not one per waiter.
 */
export class ConcurrencyLines {
  readonly #lines = new Map<string, Waiter[]>();
  readonly #maxLength: number;
  readonly #pollMs: number;

  constructor(options: { maxLength?: number; pollMs?: number } = {}) {
    this.#maxLength = options.maxLength ?? 1_000;
    this.#pollMs = options.pollMs ?? 25;
  }

  /** Whether calls are already waiting on this scope (a newcomer then queues behind them). */
  busy(scope: string): boolean {
    return (this.#lines.get(scope)?.length ?? 0) > 0;
  }

  /**
   * Waits in line, calling `attempt` each time this waiter is at the head and woken, until it
   * returns a value, the deadline passes or the signal aborts (→ undefined). Full line → undefined at once.
   */
  async wait<T>(
    scope: string,
    deadlineMs: number,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const line = this.#lines.get(scope) ?? [];
    if (line.length >= this.#maxLength) return undefined;
    this.#lines.set(scope, line);
    const waiter: Waiter = { wake: () => {} };
    line.push(waiter);
    try {
      for (;;) {
        const remaining = deadlineMs - Date.now();
        if (remaining <= 0 || signal?.aborted) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, line[0] === waiter ? Math.min(this.#pollMs, remaining) : remaining);
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            resolve();
          };
          waiter.wake = done;
          signal?.addEventListener("abort", done, { once: true });
        });
        if (line[0] !== waiter || signal?.aborted) continue;
        if (Date.now() >= deadlineMs) return undefined;
        const result = await attempt();
        if (result !== undefined) return result;
      }
    } finally {
      const index = line.indexOf(waiter);
      if (index >= 0) line.splice(index, 1);
      if (line.length === 0) this.#lines.delete(scope);
      else line[0]?.wake();
    }
  }

  /** A slot of this scope was freed here: the head tries at once. */
  notify(scope: string): void {
    this.#lines.get(scope)?.[0]?.wake();
  }
}
