import { loadOptionalDependency } from "@conduit-ai/server-core";
import type { Pool } from "pg";
import type { AuditSink } from "./audit/audit-event.js";
import { MemoryAuditSink } from "./audit/memory-audit-sink.js";
import { OutboxAuditSink } from "./audit/outbox-audit-sink.js";
import { PostgresAuditSink } from "./audit/postgres-audit-sink.js";
import { LostCallSweeper } from "./gate/lost-call-sweeper.js";
import type { GovernanceOptions } from "./governance-options.js";
import { OutboxDrain } from "./outbox/outbox-drain.js";
import { RedisOutbox, recordsOf } from "./outbox/redis-outbox.js";
import type { GovernanceStore } from "./store/governance-store.js";
import { MemoryGovernanceStore } from "./store/memory-store.js";
import { RedisOpenCalls } from "./store/redis-open-calls.js";
import { USAGE_STREAM, auditTagOf } from "./store/redis-keyspace.js";
import { RedisGovernanceStore } from "./store/redis-store.js";
import { MemoryUsageSink } from "./usage/memory-usage-sink.js";
import { PostgresUsageSink } from "./usage/postgres-usage-sink.js";
import type { UsageEvent, UsageSink } from "./usage/usage-event.js";

/** What governance keeps: the key store, the usage history, the audit log, and with Redis the sweeper and the usage outbox's drain. */
export interface GovernanceRecords {
  store: GovernanceStore;
  usage: UsageSink;
  audit: AuditSink;
  sweeper: LostCallSweeper | undefined;
  usageDrain: OutboxDrain | undefined;
  /** The pool opened for `databaseUrl` (closed last), not one the caller gave. */
  ownPool: Pool | undefined;
}

export interface GovernanceRecordsContext {
  /** `keys.store: "redis"` (checked: `options.redis` is given). */
  redisStore: boolean;
  env: NodeJS.ProcessEnv;
  onWarning: (message: string) => void;
  /** Told of every call the sweeper settles (metrics). */
  onUsage: (event: UsageEvent) => void;
}

/**
 * The records of one governance: one PostgreSQL pool for the usage history and the audit log
 * (`databaseUrl`), and with Redis the key store whose settle script keeps each usage event in an
 * outbox, the audit log's outbox, their drains and the lost-call sweeper (started); without, memory.
 *
 * @example
 * const { store, usage, audit } = openGovernanceRecords(options, { redisStore: false, env: process.env, onWarning, onUsage });
 */
export function openGovernanceRecords(options: GovernanceOptions, context: GovernanceRecordsContext): GovernanceRecords {
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
    const spillFile = options.spillFile ?? (context.env.CONDUIT_USAGE_SPILL_FILE || undefined);
    usage = new PostgresUsageSink({
      pool,
      onWarning: context.onWarning,
      waitingElsewhere: () => usageDrain?.pending ?? 0,
      ...(spillFile ? { spillFile } : {}),
      ...(options.usageWriteIntervalMs !== undefined ? { flushIntervalMs: options.usageWriteIntervalMs } : {}),
    });
  }
  usage ??= new MemoryUsageSink();
  const auditSpillFile = options.auditSpillFile ?? (context.env.CONDUIT_AUDIT_SPILL_FILE || undefined);
  // The audit table's writer; with Redis its events reach it through an outbox (below).
  const auditTable =
    !options.audit && pool
      ? new PostgresAuditSink({
          pool,
          onWarning: context.onWarning,
          waitingElsewhere: () => auditOutbox?.drain.pending ?? 0,
          ...(auditSpillFile ? { spillFile: auditSpillFile } : {}),
          ...(options.auditWriteIntervalMs !== undefined ? { flushIntervalMs: options.auditWriteIntervalMs } : {}),
        })
      : undefined;
  let auditOutbox: OutboxAuditSink | undefined;
  const sink = usage;
  let store: GovernanceStore;
  let usageDrain: OutboxDrain | undefined;
  let sweeper: LostCallSweeper | undefined;
  if (context.redisStore && options.redis) {
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
        write: (entries) => writer(recordsOf<UsageEvent>(entries, "usage event", context.onWarning)),
        ...(options.usageWriteIntervalMs !== undefined ? { intervalMs: options.usageWriteIntervalMs } : {}),
      });
    // The audit log likewise: each event is in Redis before the admin answer, drained by any process.
    if (outbox && auditTable)
      auditOutbox = new OutboxAuditSink({
        outbox,
        tag: auditTagOf(redisStore.namespace),
        table: auditTable,
        onWarning: context.onWarning,
        ...(options.auditWriteIntervalMs !== undefined ? { intervalMs: options.auditWriteIntervalMs } : {}),
      });
    sweeper = new LostCallSweeper({
      store: redisStore,
      openCalls: new RedisOpenCalls({ redis, ...namespace }),
      usage: sink,
      drains: [...(usageDrain ? [usageDrain] : []), ...(auditOutbox ? [auditOutbox.drain] : [])],
      onUsage: context.onUsage,
      onWarning: context.onWarning,
      ...(options.sweepIntervalMs !== undefined ? { intervalMs: options.sweepIntervalMs } : {}),
    });
    sweeper.start();
    store = redisStore;
  } else store = new MemoryGovernanceStore();
  const audit: AuditSink = options.audit ?? auditOutbox ?? auditTable ?? new MemoryAuditSink();
  return { store, usage, audit, sweeper, usageDrain, ownPool };
}
