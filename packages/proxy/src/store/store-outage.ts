import { storeCall } from "@conduit-ai/server-core";
import type { PoolStore } from "./pool-store.js";

/**
 * The pool's store with the core's outage handling: any failing call (Redis refused or timed
 * out, a fail-fast client refusing commands, a custom store throwing) becomes 503
 * `STORE_UNAVAILABLE` with `retry-after`, shaped by the surface's error writer — never a 500.
 *
 * @example
 * const store = guardedStore(new RedisPoolStore(redis, prefix));
 */
export function guardedStore(store: PoolStore): PoolStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || name === "close" || name === "constructor") return value;
      return (...args: unknown[]) => storeCall("proxy", () => Promise.resolve(value.apply(target, args)));
    },
  });
}
