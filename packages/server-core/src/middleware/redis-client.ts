import { createHash } from "node:crypto";
import { STORE_CALL_DEADLINE_MS, StoreUnavailableError } from "../errors/store-unavailable.js";

/**
 * The part of a Redis client the stores need, typed structurally so `server-core` never
 * imports `ioredis` at runtime: an `ioredis` `Redis` or `Cluster` instance fits as is.
 */
export interface RedisEvalClient extends RedisConnectionState {
  eval(script: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /** Used when present (ioredis has it): the script's body then crosses the wire once, not per call. */
  evalsha?(sha1: string, numberOfKeys: number, ...args: Array<string | number>): Promise<unknown>;
  /**
   * ioredis' connection state. When it says the connection was lost (`reconnecting`, `close`,
   * `end`), the stores fail at once with `STORE_UNAVAILABLE` instead of handing the command to
   * a client that would queue it; the first connection (`connecting`) is waited for.
   */
  readonly status?: string;
}

/**
 * ioredis options for a client that fails fast while Redis is down, so a request answers 503
 * `STORE_UNAVAILABLE` in milliseconds instead of waiting out the request timeout:
 *
 * - `enableOfflineQueue: false` — while disconnected a command is refused at once; the default
 *   offline queue would hold every request's command (unbounded under load) until Redis returns.
 * - `maxRetriesPerRequest: 0` — commands already sent when the connection drops fail at once
 *   instead of being resent after up to 20 reconnect attempts (a rate-limit hit counted twice).
 * - `commandTimeout: 1000` — a Redis that accepts connections but does not answer (paused,
 *   overloaded, a half-open network) fails the command after 1 s; a healthy check takes < 1 ms.
 * - `connectTimeout: 2000` — a connection attempt to an unreachable host gives up after 2 s.
 * - `enableAutoPipelining: true` — commands of one tick share one write (fewer syscalls per request
 *   under concurrency: governance's admit and settle scripts, the limiter's hits).
 *
 * Reconnection is untouched: ioredis' default `retryStrategy` retries forever (50 ms steps up to
 * 2 s), so the client recovers on its own when Redis is back. Wait for the first `ready` before
 * serving (commands are refused until then), e.g. `await once(client, "ready")`.
 *
 * @example
 * const client = new Redis(process.env.REDIS_URL!, { ...FAIL_FAST_REDIS_OPTIONS, keyPrefix: "" });
 */
export const FAIL_FAST_REDIS_OPTIONS = Object.freeze({
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1_000,
  connectTimeout: 2_000,
  // Commands issued in the same tick leave in one write: under concurrency a request's admit and
  // another's settle share a syscall (each command keeps its own timeout and reply).
  enableAutoPipelining: true,
});

/** States after the connection was lost: nothing to wait for, fail at once. */
const DISCONNECTED = new Set(["reconnecting", "close", "end"]);
/** States of the first connection attempt: wait for it to end (it ends in `ready` or `close`). */
const CONNECTING = new Set(["connecting", "connect"]);

/** What `whenConnected` needs of a client: its state and, to wait for the first connection, its events. */
export interface RedisConnectionState {
  readonly status?: string;
  once?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(event: string, listener: (...args: unknown[]) => void): unknown;
}

const firstConnections = new WeakMap<object, Promise<void>>();
/** Clients seen `ready` once: their `connecting` is a reconnection (a failover, a restart), not the first connection. */
const everReady = new WeakSet<object>();

/**
 * Resolves when a command can be sent: at once when connected (or the client does not report
 * its state); while the client makes its FIRST connection (a fail-fast client refuses commands
 * until then), after it, but never later than `STORE_CALL_DEADLINE_MS`; throws
 * `STORE_UNAVAILABLE` at once when the connection was lost, including a client reconnecting
 * after it was once ready (a sentinel failover passes through `connecting` again, and waiting
 * for that would hold requests past the 1 s contract), and when the first attempt fails.
 *
 * @example
 * await whenConnected(client, "memory");
 */
export function whenConnected(client: RedisConnectionState, store: string): Promise<void> | undefined {
  const status = client.status;
  if (status === undefined) return undefined;
  if (status === "ready") {
    everReady.add(client);
    return undefined;
  }
  if (DISCONNECTED.has(status)) throw new StoreUnavailableError(store);
  if (!CONNECTING.has(status) || !client.once || !client.removeListener) return undefined;
  if (everReady.has(client)) throw new StoreUnavailableError(store);
  let pending = firstConnections.get(client);
  if (pending === undefined) {
    pending = new Promise<void>((resolve, reject) => {
      const settle = (ok: boolean) => () => {
        client.removeListener?.("ready", onReady);
        client.removeListener?.("close", onClose);
        firstConnections.delete(client);
        if (ok) {
          everReady.add(client);
          resolve();
        } else reject(new StoreUnavailableError(store));
      };
      const onReady = settle(true);
      const onClose = settle(false);
      client.once?.("ready", onReady);
      client.once?.("close", onClose);
    });
    // Callers that gave up at their deadline leave nobody listening; a failed first attempt is not unhandled.
    pending.catch(() => undefined);
    firstConnections.set(client, pending);
  }
  return withinDeadline(pending, store);
}

/** `pending`, or `STORE_UNAVAILABLE` once `STORE_CALL_DEADLINE_MS` passed: nothing waits longer for a connection. */
function withinDeadline(pending: Promise<void>, store: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError(store, { cause: new Error(`not connected within ${STORE_CALL_DEADLINE_MS} ms`) })),
      STORE_CALL_DEADLINE_MS,
    );
  });
  return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
}

const digests = new Map<string, string>();

/**
 * Runs a Lua script in one round trip: `EVALSHA` by its SHA-1 (Redis keeps compiled scripts),
 * and `EVAL` with the body only when Redis answers `NOSCRIPT` (first call, or after a restart
 * or `SCRIPT FLUSH`), which also loads it for the next calls.
 *
 * @example
 * const [allowed] = (await runScript(redis, WINDOW_SCRIPT, 1, key, max)) as [number];
 */
export async function runScript(
  client: RedisEvalClient,
  script: string,
  numberOfKeys: number,
  ...args: Array<string | number>
): Promise<unknown> {
  if (client.evalsha === undefined) return client.eval(script, numberOfKeys, ...args);
  let sha = digests.get(script);
  if (sha === undefined) {
    sha = createHash("sha1").update(script).digest("hex");
    digests.set(script, sha);
  }
  try {
    return await client.evalsha(sha, numberOfKeys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return client.eval(script, numberOfKeys, ...args);
  }
}
