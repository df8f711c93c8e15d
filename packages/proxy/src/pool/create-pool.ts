import { type ProxyConfigInput, parseProxyConfig } from "../config.js";
import { MemoryPoolStore } from "./store/memory-store.js";
import type { PoolStore } from "./store/pool-store.js";
import { AccountPool } from "./account-pool.js";

/**
 * A pool alone, for engines other than the Messages passthrough (the codex engine leases
 * `vendor: "codex"` accounts from it).
 *
 * @example
 * const pool = createAccountPool(config, { store: new RedisPoolStore(redis, "conduit:proxy:") });
 * const selection = await pool.acquire({ vendor: "codex", signal });
 */
export function createAccountPool(config: ProxyConfigInput, options: { store?: PoolStore; fetch?: typeof fetch } = {}): AccountPool {
  const parsed = parseProxyConfig(config);
  return new AccountPool({
    config: parsed,
    store: options.store ?? new MemoryPoolStore(),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
