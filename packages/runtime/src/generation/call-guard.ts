import type { ClientRequest, IncomingMessage } from "node:http";

/** An error whose `name` tells `mapProviderError` what happened (the AI SDK's names). */
function namedError(name: "AbortError" | "TimeoutError", message: string): Error {
  return Object.assign(new Error(message), { name });
}

/**
 * The limits of one model call: the caller's abort signal, `stepMs` for the whole call and
 * `chunkMs` between two chunks of its stream. Whichever fires first destroys the HTTP
 * request with an `AbortError` or `TimeoutError`, which fails whatever is waiting on it.
 * Two timers per call, refreshed (not re-created) per chunk.
 */
export class CallGuard {
  #request: ClientRequest | undefined;
  #response: IncomingMessage | undefined;
  #failure: Error | undefined;
  #interrupt: ((error: Error) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.fail(namedError("AbortError", "The call was aborted"));
  readonly #stepTimer: NodeJS.Timeout | undefined;
  #chunkTimer: NodeJS.Timeout | undefined;
  readonly #chunkMs: number | undefined;

  constructor(signal: AbortSignal | undefined, timeout: { stepMs: number; chunkMs: number } | undefined) {
    this.#signal = signal;
    if (signal?.aborted) this.#failure = namedError("AbortError", "The call was aborted");
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (timeout !== undefined) {
      this.#stepTimer = setTimeout(
        () => this.fail(namedError("TimeoutError", `No complete answer within ${timeout.stepMs} ms`)),
        timeout.stepMs,
      );
      this.#chunkMs = timeout.chunkMs;
    }
  }

  /** Throws the failure if the guard already fired (before a new request is sent). */
  check(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** The request in flight: destroyed if the guard fires. */
  attach(request: ClientRequest): void {
    this.#request = request;
    if (this.#failure !== undefined) request.destroy(this.#failure);
  }

  /** The response being read: from now on silence longer than `chunkMs` fails the call. */
  attachResponse(response: IncomingMessage): void {
    this.#response = response;
    if (this.#failure !== undefined) response.destroy(this.#failure);
    else if (this.#chunkMs !== undefined) {
      const chunkMs = this.#chunkMs;
      // A continued answer reads a second response: the first one's timer goes.
      clearTimeout(this.#chunkTimer);
      this.#chunkTimer = setTimeout(() => this.fail(namedError("TimeoutError", `No stream chunk within ${chunkMs} ms`)), chunkMs);
    }
  }

  /** A chunk arrived. */
  chunk(): void {
    this.#chunkTimer?.refresh();
  }

  /** Waits `ms`, unless the guard fires first (then rejects with its failure). */
  sleep(ms: number): Promise<void> {
    this.check();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#interrupt = undefined;
        resolve();
      }, ms);
      this.#interrupt = (error) => {
        clearTimeout(timer);
        reject(error);
      };
    });
  }

  fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#interrupt?.(error);
    this.#request?.destroy(error);
    this.#response?.destroy(error);
  }

  /** The call is over (done, failed or abandoned): timers and listener go, the connection too unless it completed. */
  dispose(): void {
    clearTimeout(this.#stepTimer);
    clearTimeout(this.#chunkTimer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
    if (this.#response !== undefined && !this.#response.complete) this.#response.destroy();
    else if (this.#response === undefined) this.#request?.destroy();
  }
}
