import { ProviderKeyPools } from "./pool/provider-key-pools.js";
import { MemoryPoolStore } from "./pool/store/memory-store.js";
import { type RedisPoolClient, RedisPoolStore } from "./pool/store/redis-store.js";
import { guardedStore } from "./pool/store/store-outage.js";
import { keyResetAt } from "./wire/provider-keys/key-reset.js";

export interface ProviderKeyPoolsOptions {
  /** Shares cooldowns and disabled keys between processes; memory (this process only) without it. */
  redis?: RedisPoolClient | undefined;
  /** Default `conduit:proxy:`; the keys live under `<prefix>keys:`, apart from the accounts. */
  redisPrefix?: string | undefined;
  strategy?: "fill-first" | "round-robin";
  warn?: (message: string) => void;
}

/**
 * The key pools of the runtime's providers: pass `keySource` to `createRuntime({ keySources })`
 * and the pools to `createProxy(config, { keyPools })` (routing skips a provider whose keys all
 * cool). A 429 cools a key until the vendor's reset (`retry-after`, `x-ratelimit-reset-*`,
 * `anthropic-ratelimit-*-reset`), a 401/403 disables it.
 *
 * @example
 * const keyPools = createProviderKeyPools({ redis, warn: (line) => logger.warn({}, line) });
 * const runtime = createRuntime({ providers, keySources: keyPools.keySource });
 */
export function createProviderKeyPools(options: ProviderKeyPoolsOptions = {}): ProviderKeyPools {
  const store = options.redis
    ? guardedStore(new RedisPoolStore(options.redis, `${options.redisPrefix ?? "conduit:proxy:"}keys:`))
    : new MemoryPoolStore();
  return new ProviderKeyPools({
    store,
    resetAt: keyResetAt,
    warn: options.warn ?? ((message) => console.warn(message)),
    ...(options.strategy ? { strategy: options.strategy } : {}),
  });
}
