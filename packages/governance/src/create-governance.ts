import {
  type DependencyHealth,
  type RouteGroup,
  type Runtime,
  type ServerAdapter,
  type TokenPrice,
  loadOptionalDependency,
  mergePrices,
} from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { RedisRateLimitStore } from "@conduit-ai/server-core/middleware";
import { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import type { Cluster, Redis } from "ioredis";
import type { Pool } from "pg";
import { type AdminCheck, type AdminKeyEntry, createAdminCheck } from "./admin/admin-check.js";
import type { AuditSink } from "./audit/audit-event.js";
import { MemoryAuditSink } from "./audit/memory-audit-sink.js";
import { OutboxAuditSink } from "./audit/outbox-audit-sink.js";
import { PostgresAuditSink } from "./audit/postgres-audit-sink.js";
import { createAdminRoutes } from "./admin/admin-routes.js";
import { gateRuntime, runtimeDefaultModel } from "./api/gated-runtime.js";
import { type VirtualKeyWebSocket, virtualKeyWebSocket } from "./api/virtual-key-websocket.js";
import { createVirtualKeyGuard, digestOfCaller } from "./api/virtual-key-guard.js";
import { type AdminConfigInput, type KeysConfigInput, adminConfigSchema, keysConfigSchema } from "./config/governance-config.js";
import { GovernanceGate } from "./gate/governance-gate.js";
import { LostCallSweeper } from "./gate/lost-call-sweeper.js";
import { governanceMetrics } from "./governance-metrics.js";
import { keyDigest } from "./key-secret.js";
import { OutboxDrain } from "./outbox/outbox-drain.js";
import { type OutboxEntry, RedisOutbox } from "./outbox/redis-outbox.js";
import type { GovernanceStore } from "./store/governance-store.js";
import { MemoryGovernanceStore } from "./store/memory-store.js";
import { RedisOpenCalls } from "./store/redis-open-calls.js";
import { USAGE_STREAM, auditTagOf } from "./store/redis-keyspace.js";
import { RedisGovernanceStore } from "./store/redis-store.js";
import { MemoryUsageSink } from "./usage/memory-usage-sink.js";
import { PostgresUsageSink } from "./usage/postgres-usage-sink.js";
import type { UsageEvent, UsageSink } from "./usage/usage-event.js";
import type { ReconcileOptions } from "./reconcile/reconcile.js";
import type { ReconcileProvider } from "./reconcile/vendor-report.js";

export interface GovernanceOptions {
  /** The `keys` config key. */
  keys: KeysConfigInput;
  /** The `admin` config key. */
  admin?: AdminConfigInput;
  /** `prices` (and `proxy.prices`) over the defaults: one table for the whole server. */
  prices?: Record<string, TokenPrice>;
  /** The server's Redis client (`keys.store: "redis"`); a `Cluster` works too (each script touches one slot). */
  redis?: Redis | Cluster;
  /** Namespace of the Redis keys (default `conduit:gov`). */
  namespace?: string;
  /** PostgreSQL for the durable history (`DATABASE_URL`); without it, history stays in memory. */
  databaseUrl?: string;
  /** Or the caller's pool. */
  pool?: Pool;
  /** Or any sink. */
  usage?: UsageSink;
  /**
   * The audit log's sink (default: PostgreSQL with `databaseUrl`/`pool` — with `keys.store: "redis"`
   * each event goes through a Redis outbox before the admin answer — else memory, lost on restart).
   */
  audit?: AuditSink;
  /**
   * Where an outage's overflow of audit events spills: this, else env `CONDUIT_AUDIT_SPILL_FILE`,
   * else `./conduit-audit-spill.ndjson`.
   */
  auditSpillFile?: string;
  /**
   * Where an outage's overflow of usage events spills: this, else env `CONDUIT_USAGE_SPILL_FILE`
   * (the container image sets `/tmp/conduit-usage-spill.ndjson`: its root filesystem is read-only),
   * else `./conduit-usage-spill.ndjson`.
   */
  spillFile?: string;
  /**
   * Where failed admin credentials are counted (per address and per credential). Default: Redis
   * when `redis` is given (shared by every process), else this process's memory.
   */
  credentialFailures?: CredentialFailureGuard;
  /** Where settlements the key store could not take spill (default `./conduit-settlement-spill.ndjson`; one per store namespace). */
  settlementSpillFile?: string;
  /** How often this process writes the usage events it recorded to the history (default 500 ms). */
  usageWriteIntervalMs?: number;
  /** How often this process writes the audit events it recorded to PostgreSQL (default 500 ms). */
  auditWriteIntervalMs?: number;
  /**
   * With Redis: how often a lost-call sweep runs (default 10 s; one process per period does it) —
   * it settles the calls of processes that died and drains the usage outboxes nobody drains.
   */
  sweepIntervalMs?: number;
  /** How long a call's lease outlives its timeout before the sweeper may take it (default 30 s). */
  leaseMarginMs?: number;
  /** Also grant admin to users of the server's own auth with role `admin` (mounts the admin API without admin keys). */
  serverAdminRole?: boolean;
  /** Providers with an admin key: `GET /admin/reconcile` compares their vendor's reports with the usage history. */
  reconcile?: { providers: readonly ReconcileProvider[]; options?: ReconcileOptions };
  /** `CONDUIT_KEYS_SECRET`, `CONDUIT_ADMIN_KEY`, `CONDUIT_USAGE_SPILL_FILE`. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  onWarning?: (message: string) => void;
}

/** Virtual keys, limits, budgets and the admin API of one server. */
export interface Governance {
  readonly gate: GovernanceGate;
  readonly store: GovernanceStore;
  readonly usage: UsageSink;
  /** With Redis: the sweeper of calls whose process died (`sweep()` runs a pass now). */
  readonly sweeper: LostCallSweeper | undefined;
  /** Whether an admin credential exists (the admin API is mounted only then). */
  readonly adminEnabled: boolean;
  /** The admin check the operator console is handed (`identify` for the caller's role, `delegate` for its single sign-on sessions). */
  readonly checkAdmin: AdminCheck;
  /** The audit log: every state-changing admin call, and the console's acts, sign-ins and sign-outs. */
  readonly audit: AuditSink;
  /** Failed admin credentials, per address and per credential: the console's sign-in shares it. */
  readonly credentialFailures: CredentialFailureGuard;
  /** The `/admin/*` routes, or undefined without an admin credential. */
  adminRoutes(): RouteGroup | undefined;
  /** The auth type `virtual-key` on `/ws`: the upgrade's auth and the gated runtime its messages use. */
  webSocket(runtime: Runtime): VirtualKeyWebSocket;
  /**
   * The runtime for `/api` routes that call it themselves (the `/api/ai` workflows, several calls
   * a request): each call admitted and settled for the key the virtual-key guard found.
   */
  apiRuntime(runtime: Runtime): Runtime;
  /**
   * Mounts what applies on a server: the admin API (with a credential), the key guard of every
   * `/api` route with the gated runtime its routes call (`virtualKeyAuth`), and the per-team
   * metrics (when the server has metrics).
   */
  install(server: ServerAdapter, options?: { virtualKeyAuth?: boolean }): void;
  close(): Promise<void>;
}

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
  let ownPool: Pool | undefined;
  let usage = options.usage;
  let pool = options.pool;
  // One pool for the durable records: the usage history and the audit log.
  if (!pool && options.databaseUrl && (!usage || !options.audit)) {
    const pg = loadOptionalDependency<typeof import("pg")>("pg", {
      feature: "the governance usage history and audit log (DATABASE_URL)",
      from: import.meta.url,
    });
    ownPool = new pg.Pool({ connectionString: options.databaseUrl, max: 4, connectionTimeoutMillis: 2_000 });
    ownPool.on("error", () => undefined);
    pool = ownPool;
  }
  if (!usage && pool) {
    const spillFile = options.spillFile ?? (env.CONDUIT_USAGE_SPILL_FILE || undefined);
    usage = new PostgresUsageSink({
      pool,
      onWarning,
      waitingElsewhere: () => usageDrain?.pending ?? 0,
      ...(spillFile ? { spillFile } : {}),
      ...(options.usageWriteIntervalMs !== undefined ? { flushIntervalMs: options.usageWriteIntervalMs } : {}),
    });
  }
  usage ??= new MemoryUsageSink();
  const auditSpillFile = options.auditSpillFile ?? (env.CONDUIT_AUDIT_SPILL_FILE || undefined);
  // The audit table's writer; with Redis its events reach it through an outbox (below).
  const auditTable =
    !options.audit && pool
      ? new PostgresAuditSink({
          pool,
          onWarning,
          waitingElsewhere: () => auditOutbox?.drain.pending ?? 0,
          ...(auditSpillFile ? { spillFile: auditSpillFile } : {}),
          ...(options.auditWriteIntervalMs !== undefined ? { flushIntervalMs: options.auditWriteIntervalMs } : {}),
        })
      : undefined;
  let auditOutbox: OutboxAuditSink | undefined;
  const listeners: Array<(event: UsageEvent) => void> = [];
  const onUsage = (event: UsageEvent) => {
    for (const listener of listeners) listener(event);
  };
  const sink = usage;
  let store: GovernanceStore;
  let usageDrain: OutboxDrain | undefined;
  let sweeper: LostCallSweeper | undefined;
  if (keys.store === "redis" && options.redis) {
    const { redis } = options;
    const namespace = options.namespace ? { namespace: options.namespace } : {};
    // A durable history (a sink that writes): each usage event is kept in Redis by the settle
    // script itself and drained from there, so a process killed before its next write loses none.
    const writer = sink.write?.bind(sink);
    const outbox = writer || auditTable ? new RedisOutbox({ redis }) : undefined;
    const redisStore = new RedisGovernanceStore({ redis, ...namespace, ...(outbox && writer ? { outbox } : {}) });
    if (outbox && writer)
      usageDrain = new OutboxDrain({
        outbox,
        stream: USAGE_STREAM,
        write: (entries) => writer(usageEventsOf(entries, onWarning)),
        ...(options.usageWriteIntervalMs !== undefined ? { intervalMs: options.usageWriteIntervalMs } : {}),
      });
    // The audit log likewise: each event is in Redis before the admin answer, drained by any process.
    if (outbox && auditTable)
      auditOutbox = new OutboxAuditSink({
        outbox,
        tag: auditTagOf(redisStore.namespace),
        table: auditTable,
        onWarning,
        ...(options.auditWriteIntervalMs !== undefined ? { intervalMs: options.auditWriteIntervalMs } : {}),
      });
    sweeper = new LostCallSweeper({
      store: redisStore,
      openCalls: new RedisOpenCalls({ redis, ...namespace }),
      usage: sink,
      drains: [...(usageDrain ? [usageDrain] : []), ...(auditOutbox ? [auditOutbox.drain] : [])],
      onUsage,
      onWarning,
      ...(options.sweepIntervalMs !== undefined ? { intervalMs: options.sweepIntervalMs } : {}),
    });
    sweeper.start();
    store = redisStore;
  } else store = new MemoryGovernanceStore();
  const audit: AuditSink = options.audit ?? auditOutbox ?? auditTable ?? new MemoryAuditSink();
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

/** Outbox records as usage events; one that is not JSON (never written so) is dropped with a warning rather than block the rest. */
function usageEventsOf(entries: readonly OutboxEntry[], onWarning: (message: string) => void): UsageEvent[] {
  const events: UsageEvent[] = [];
  for (const entry of entries) {
    try {
      events.push(JSON.parse(entry.json) as UsageEvent);
    } catch {
      onWarning(`governance: an unreadable usage event (${entry.id}) in the Redis outbox was dropped`);
    }
  }
  return events;
}
