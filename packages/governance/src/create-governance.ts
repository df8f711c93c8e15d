import { type DependencyHealth, type ServerAdapter, mergePrices } from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import { type AdminKeyEntry, createAdminCheck } from "./admin/admin-check.js";
import { createAdminRoutes } from "./admin/admin-routes.js";
import { gateRuntime, runtimeDefaultModel } from "./api/gated-runtime.js";
import { virtualKeyWebSocket } from "./api/virtual-key-websocket.js";
import { createVirtualKeyGuard, digestOfCaller } from "./api/virtual-key-guard.js";
import { adminConfigSchema, keysConfigSchema } from "./config/governance-config.js";
import { GovernanceGate } from "./gate/governance-gate.js";
import { governanceMetrics } from "./governance-metrics.js";
import type { Governance, GovernanceOptions } from "./governance-options.js";
import { openGovernanceRecords } from "./governance-records.js";
import { keyDigest } from "./key-secret.js";
import type { UsageEvent, UsageSink } from "./usage/usage-event.js";

export type { Governance, GovernanceOptions };

/** A server that lists dependencies in its health routes (every Conduit adapter). */
function hasHealthChecks(
  server: ServerAdapter,
): server is ServerAdapter & { registerHealthCheck(name: string, check: () => Promise<DependencyHealth>): void } {
  return typeof (server as { registerHealthCheck?: unknown }).registerHealthCheck === "function";
}

/**
 * Governance from the `keys` / `admin` / `prices` config keys.
 *
 * @example
 * const governance = await createGovernance({ keys: { store: "redis" }, admin: { keys: [adminKey] }, redis, databaseUrl: process.env.DATABASE_URL });
 * governance.install(server, { virtualKeyAuth: true });
 * const proxy = createProxy(config, { gate: governance.gate });
 */
export async function createGovernance(options: GovernanceOptions): Promise<Governance> {
  const env = options.env ?? process.env;
  const keys = keysConfigSchema.parse(options.keys);
  const admin = adminConfigSchema.parse(options.admin ?? {});
  const adminKeys: AdminKeyEntry[] = [
    ...admin.keys,
    ...(env.CONDUIT_ADMIN_KEY && env.CONDUIT_ADMIN_KEY.length >= 32 ? [env.CONDUIT_ADMIN_KEY] : []),
  ];
  const keysSecret = keys.secret ?? (env.CONDUIT_KEYS_SECRET || undefined);
  const onWarning = options.onWarning ?? (() => {});
  if (keys.store === "redis" && !options.redis)
    throw new Error('governance: keys.store is "redis" but no Redis client was given (set REDIS_URL)');
  const listeners: Array<(event: UsageEvent) => void> = [];
  const onUsage = (event: UsageEvent) => {
    for (const listener of listeners) listener(event);
  };
  const { store, usage, audit, sweeper, usageDrain, ownPool } = openGovernanceRecords(options, {
    redisStore: keys.store === "redis",
    env,
    onWarning,
    onUsage,
  });
  const defaultMaxOutputTokens = keys.defaultMaxOutputTokens ?? 4096;
  const gate = new GovernanceGate({
    store,
    usage,
    prices: mergePrices(options.prices),
    ...(keysSecret ? { keysSecret } : {}),
    defaultMaxOutputTokens,
    unpricedModels: keys.unpricedModels,
    onWarning,
    ...(options.settlementSpillFile ? { settlementSpillFile: options.settlementSpillFile } : {}),
    ...(options.leaseMarginMs !== undefined ? { leaseMarginMs: options.leaseMarginMs } : {}),
    onUsage,
  });
  const check = createAdminCheck({ keys: adminKeys, ...(options.serverAdminRole ? {} : { roles: [] }) });
  const credentialFailures =
    options.credentialFailures ??
    new CredentialFailureGuard(
      options.redis
        ? { store: new RedisRateLimitStore(options.redis, { prefix: `${options.namespace ?? "conduit:gov"}:auth-failures:` }), prefix: "" }
        : {},
    );
  const adminEnabled = adminKeys.length > 0 || options.serverAdminRole === true;
  const adminRoutes = () =>
    adminEnabled
      ? createAdminRoutes({
          store,
          usage: usage as UsageSink,
          prefix: keys.prefix,
          keysSecret,
          check,
          audit,
          isVirtualKey: (credential) => store.isActiveDigest(keyDigest(credential, keysSecret), Date.now()),
          failures: credentialFailures,
          ...(options.reconcile ? { reconcile: options.reconcile } : {}),
        })
      : undefined;
  return {
    gate,
    store,
    usage,
    audit,
    sweeper,
    adminEnabled,
    checkAdmin: check,
    credentialFailures,
    adminRoutes,
    webSocket: (runtime) => virtualKeyWebSocket(gate, runtime, defaultMaxOutputTokens),
    apiRuntime: (runtime) =>
      gateRuntime(gate, runtime, {
        surface: "api",
        defaultMaxOutputTokens,
        digestOf: (context) => digestOfCaller(context?.user),
        defaultModel: runtimeDefaultModel(runtime),
      }),
    install(server, installOptions = {}) {
      const routes = adminRoutes();
      if (routes) server.registerRouteGroup(routes);
      // The usage history (PostgreSQL) beside the other dependencies: never required, with its buffered count.
      const sink = usage as UsageSink;
      if (sink.health && hasHealthChecks(server))
        server.registerHealthCheck("postgres", () => (sink.health as () => Promise<DependencyHealth>)());
      // The audit log beside it: never required either (its events wait in memory and the spill file).
      if (audit.health && hasHealthChecks(server))
        server.registerHealthCheck("audit-log", () => (audit.health as () => Promise<DependencyHealth>)());
      if (installOptions.virtualKeyAuth) {
        const config = server.getConfig();
        // Every /api route asks for a key (fail closed) and calls the gated runtime; /metrics keeps its own access
        // rule, and the detailed health (dependencies' states, never a secret) stays what operators and the console read.
        server.registerMiddleware(
          createVirtualKeyGuard({
            gate,
            basePath: config.basePath ?? "/api",
            publicPaths: ["/metrics", "/health/detailed"],
            defaultMaxOutputTokens,
            timeoutMs: config.timeout,
          }),
        );
      }
      const metrics = getServerMetrics(server);
      if (metrics) {
        listeners.push(governanceMetrics(metrics.registry, keys.metricsPerKey));
        // The per-team figures are the admins': governance's admin check is who reads /api/metrics in full.
        // A team-admin reads their own team's figures through /admin, not every team's here.
        metrics.allowReader((ctx) => {
          const found = check.identify(ctx);
          return typeof found !== "string" && !found.role.startsWith("team-admin:");
        });
      }
    },
    async close() {
      // Settlements first: one still waiting for the store spills before the store goes; then the
      // usage events they put in the outbox are written (what cannot be stays there for the others).
      await gate.close();
      await sweeper?.close();
      await usageDrain?.close();
      await usage.close();
      await audit.close();
      await store.close();
      await ownPool?.end();
    },
  };
}
