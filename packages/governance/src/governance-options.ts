import type { RouteGroup, Runtime, ServerAdapter, TokenPrice } from "@conduit-ai/server-core";
import type { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import type { Cluster, Redis } from "ioredis";
import type { Pool } from "pg";
import type { AdminCheck } from "./admin/admin-check.js";
import type { VirtualKeyWebSocket } from "./api/virtual-key-websocket.js";
import type { AuditSink } from "./audit/audit-event.js";
import type { AdminConfigInput, KeysConfigInput } from "./config/governance-config.js";
import type { GovernanceGate } from "./gate/governance-gate.js";
import type { LostCallSweeper } from "./gate/lost-call-sweeper.js";
import type { ReconcileOptions } from "./reconcile/reconcile.js";
import type { ReconcileProvider } from "./reconcile/vendor-report.js";
import type { GovernanceStore } from "./store/governance-store.js";
import type { UsageSink } from "./usage/usage-event.js";

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
