import { storeCall } from "@conduit-ai/server-core";
import { type PoolStore, isImmediateStore } from "./pool-store.js";

/**
 * The pool's store with the core's outage handling: any failing call (Redis refused or timed
 * out, a fail-fast client refusing commands, a custom store throwing) becomes 503
 * `STORE_UNAVAILABLE` with `retry-after`, shaped by the surface's error writer — never a 500.
 * A store answering from memory (`ImmediatePoolStore`) cannot be unreachable: it is used as is.
 *
 * @example
 * const store = guardedStore(new RedisPoolStore(redis, prefix));
 */
export function guardedStore(store: PoolStore): PoolStore {
  if (isImmediateStore(store)) return store;
  // One wrapper per method, not one per call.
  const wrappers = new Map<PropertyKey, { method: (...args: unknown[]) => unknown; guarded: (...args: unknown[]) => unknown }>();
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || name === "close" || name === "constructor") return value;
      const method = value as (...args: unknown[]) => unknown;
      let wrapper = wrappers.get(name);
      if (wrapper?.method !== method) {
        wrapper = { method, guarded: (...args) => storeCall("proxy", () => Promise.resolve(method.apply(target, args))) };
        wrappers.set(name, wrapper);
      }
      return wrapper.guarded;
    },
  });
}
