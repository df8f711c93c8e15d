import type { ProviderKeyPools } from "@conduit-ai/proxy";
import type { ServerAdapter } from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import type { SharedRedis } from "./redis-setup.js";

/** True when some provider of the file lists several `apiKeys`: only then is a pool needed. */
function hasKeyPool(providers: unknown): boolean {
  if (typeof providers !== "object" || providers === null) return false;
  return Object.values(providers).some(
    (entry) => Array.isArray((entry as { apiKeys?: unknown } | null)?.apiKeys) && (entry as { apiKeys: unknown[] }).apiKeys.length > 1,
  );
}

/**
 * The key pools of the file's providers with several `apiKeys` (the proxy's pool code, shared
 * through Redis when the server has one, under `<prefix>proxy:keys:`), or undefined when no
 * provider has more than one key. Loaded on demand.
 */
export async function setupKeyPools(
  providers: unknown,
  options: { redis: SharedRedis | undefined; keyPrefix: string; warn: (message: string) => void },
): Promise<ProviderKeyPools | undefined> {
  if (!hasKeyPool(providers)) return undefined;
  const { createProviderKeyPools } = await import("@conduit-ai/proxy");
  return createProviderKeyPools({ redis: options.redis, redisPrefix: `${options.keyPrefix}proxy:`, warn: options.warn });
}

/** `conduit_provider_key_status{provider,key,status}` on the server's metrics, when it has them. */
export function attachKeyStatusGauge(server: ServerAdapter, pools: ProviderKeyPools | undefined): void {
  const registry = pools ? getServerMetrics(server)?.registry : undefined;
  if (!pools || !registry) return;
  pools.attachGauge(
    registry.gauge({
      name: "conduit_provider_key_status",
      help: "A provider API key's status: 1 for its current status (active, cooling, disabled)",
      labelNames: ["provider", "key", "status"],
    }),
  );
}
