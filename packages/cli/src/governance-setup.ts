import type { Governance } from "@conduit-ai/governance";
import { serverPrices } from "./price-setup.js";
import { reconcileProvidersOf } from "./reconcile-providers.js";
import type { SharedRedis } from "./redis-setup.js";
import { UsageError } from "./usage-error.js";

/**
 * The config file's `keys`, `admin` and `prices` keys as governance (virtual keys, limits,
 * budgets, the `/admin` API), or undefined without `keys`. `keys.store: "redis"` uses the
 * assembly's client for `REDIS_URL` (keys under `REDIS_KEY_PREFIX` + `gov`); `DATABASE_URL`
 * sends the usage history to PostgreSQL. Prices: `proxy.prices`, then `prices`, over the defaults.
 * Loaded on demand.
 */
export async function setupGovernance(
  file: { [key: string]: unknown },
  {
    redis,
    env,
    keyPrefix,
    serverAdminRole = false,
  }: {
    redis: SharedRedis | undefined;
    env: NodeJS.ProcessEnv;
    keyPrefix?: string;
    /** The server has its own auth: its users with role `admin` are admins of `/admin` and the console too. */
    serverAdminRole?: boolean;
  },
): Promise<Governance | undefined> {
  // `admin` alone is the operator console's credential; the admin API needs virtual keys to manage.
  if (file.keys === undefined) return undefined;
  const { createGovernance, parseGovernanceConfig } = await import("@conduit-ai/governance");
  let parsed: ReturnType<typeof parseGovernanceConfig>;
  try {
    parsed = parseGovernanceConfig(file);
  } catch (error) {
    throw new UsageError(`Config file: ${(error as Error).message}`);
  }
  if (parsed.keys?.store === "redis" && !redis)
    throw new UsageError(
      'Config file: keys.store is "redis" but no Redis is configured (REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS or a redis section)',
    );
  const prices = serverPrices(file);
  // Providers with an adminKey: GET /admin/reconcile reads their vendor's reports.
  const reconcilable = reconcileProvidersOf(file, env);
  return createGovernance({
    keys: parsed.keys ?? {},
    ...(parsed.admin ? { admin: parsed.admin } : {}),
    prices,
    ...(redis ? { redis, namespace: `${keyPrefix ?? (env.REDIS_KEY_PREFIX || "conduit:")}gov` } : {}),
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    ...(serverAdminRole ? { serverAdminRole } : {}),
    ...(reconcilable.length > 0 ? { reconcile: { providers: reconcilable } } : {}),
    env,
    onWarning: (message) => console.warn(message),
  });
}
