import type { ConduitProxy, ProviderKeyPools } from "@conduit-ai/proxy";
import type { Guardrails } from "@conduit-ai/guardrails";
import { type Gate, type Runtime, type TokenPrice, createConsoleLogger } from "@conduit-ai/server-core";
import type { SharedRedis } from "./redis-setup.js";
import { proxySectionMessage } from "./config-file.js";
import { UsageError } from "./usage-error.js";

/**
 * The config file's `proxy` section as a proxy to mount (`/v1/messages`, `/v1/chat/completions`
 * — non-Claude models answered by `runtime` —, `/limits`, `/accounts`), or undefined when absent or not `enabled`. `store: "redis"` shares the pool
 * through the assembly's Redis client, any topology (keys under the key prefix + `proxy:`). Loaded on demand.
 */
export async function setupProxy(
  section: unknown,
  {
    redis,
    runtime,
    env = {},
    keyPrefix = env.REDIS_KEY_PREFIX || "conduit:",
    gate,
    prices,
    keyPools,
    guardrails,
  }: {
    redis: SharedRedis | undefined;
    runtime: Runtime;
    env?: NodeJS.ProcessEnv;
    keyPrefix?: string;
    gate?: Gate;
    /** The server's one price table (`proxy.prices`, then `prices`); the pool prices accounts' spend with it. */
    prices?: Record<string, TokenPrice>;
    /** The providers' key pools: routing skips a provider whose keys all cool or are disabled. */
    keyPools?: ProviderKeyPools;
    /** The config file's `guardrails`, on every proxy surface. */
    guardrails?: Guardrails | undefined;
  },
): Promise<ConduitProxy | undefined> {
  if (section === undefined || (typeof section === "object" && section !== null && (section as { enabled?: unknown }).enabled !== true))
    return undefined;
  const { chatCompletionsFor, createProxy, parseProxyConfig } = await import("@conduit-ai/proxy");
  let config: ReturnType<typeof parseProxyConfig>;
  try {
    config = parseProxyConfig(section);
  } catch (error) {
    throw new UsageError(`Config file: ${proxySectionMessage(section, (error as Error).message)}`);
  }
  if (config.store === "redis" && !redis)
    throw new UsageError(
      'Config file: proxy.store is "redis" but no Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS)',
    );
  if (config.cache?.store === "redis" && !redis)
    throw new UsageError(
      'Config file: proxy.cache.store is "redis" but no Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS)',
    );
  const logger = createConsoleLogger("warn");
  const onWarning = (message: string) => logger.warn({ component: "proxy" }, message);
  // The pool's state and the response cache share the server's Redis, under its prefix.
  const shared = (config.store === "redis" || config.cache?.store === "redis") && redis ? { redis, redisPrefix: `${keyPrefix}proxy:` } : {};
  // With governance (a `keys` section) its gate admits every proxy call: virtual keys, limits, budgets.
  return createProxy(prices ? { ...config, prices } : config, {
    ...shared,
    onWarning,
    chatCompletions: chatCompletionsFor(runtime),
    runtime,
    ...(gate ? { gate } : {}),
    ...(keyPools ? { keyPools } : {}),
    ...(guardrails ? { guardrails } : {}),
  });
}
