import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import { ServerAdapterError } from "./server-adapter-error.js";

/** What `Retry-After` says while a store is down: about one reconnect attempt of a Redis client. */
export const STORE_UNAVAILABLE_RETRY_AFTER_MS = 2_000;

/**
 * A shared store (Redis for rate limits, memory, caches, sessions) cannot be reached: 503
 * `STORE_UNAVAILABLE`, retryable, with `Retry-After`. The message names the store, never the
 * cause (a Redis error may carry host names); the cause stays server-side for logs.
 *
 * @example
 * throw new StoreUnavailableError("rate-limit", { cause: error });
 */
export class StoreUnavailableError extends ServerAdapterError {
  /** Which store failed (`rate-limit`, `memory`, `cache`, …). */
  readonly store: string;

  constructor(store: string, options: { cause?: unknown; retryAfterMs?: number; message?: string } = {}) {
    super(options.message ?? `The ${store} store is unavailable; retry shortly`, {
      code: ErrorCode.STORE_UNAVAILABLE,
      statusCode: 503,
      category: ErrorCategory.EXTERNAL,
      severity: ErrorSeverity.HIGH,
      retryable: true,
      retryAfterMs: options.retryAfterMs ?? STORE_UNAVAILABLE_RETRY_AFTER_MS,
      details: { store },
      cause: options.cause,
    });
    this.store = store;
  }
}

/** True for a `STORE_UNAVAILABLE` error from any copy of server-core. */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return ServerAdapterError.isInstance(error) && error.code === ErrorCode.STORE_UNAVAILABLE;
}

/**
 * The longest a store operation may take before it fails with `STORE_UNAVAILABLE`: a healthy
 * Redis answers in about a millisecond; a cluster client retrying on a stale slot map during a
 * failover would otherwise hold the request for several seconds.
 */
export const STORE_CALL_DEADLINE_MS = 1_000;

const afterIo: (callback: () => void) => void =
  typeof setImmediate === "function" ? (callback) => setImmediate(callback) : (callback) => setTimeout(callback, 0);

/**
 * Runs one store operation; any failure (connection refused, command timeout, a client
 * refusing commands while disconnected) or no answer within `STORE_CALL_DEADLINE_MS` becomes
 * `StoreUnavailableError` for `store`. An operation abandoned at the deadline may still reach
 * Redis later (its reply is then ignored).
 *
 * @example
 * const reply = await storeCall("rate-limit", () => client.eval(script, 1, key));
 */
export async function storeCall<T>(store: string, operation: () => Promise<T>, deadlineMs = STORE_CALL_DEADLINE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    const expire = () => reject(new StoreUnavailableError(store, { cause: new Error(`no answer within ${deadlineMs} ms`) }));
    // Expire after the I/O poll that follows the timer: when the event loop itself stalled past the
    // deadline (a long synchronous task), a reply already waiting on the socket still wins.
    timer = setTimeout(() => afterIo(expire), deadlineMs);
  });
  try {
    const work = operation();
    // A late failure of the abandoned operation must not surface as an unhandled rejection.
    work.catch(() => undefined);
    return await Promise.race([work, expired]);
  } catch (error) {
    throw isStoreUnavailable(error) ? error : new StoreUnavailableError(store, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
