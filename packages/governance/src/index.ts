/**
 * @conduit-ai/governance — virtual keys, teams, limits and budgets by reservation for every AI
 * surface of a Conduit server, exact across processes on one Redis, with a durable spend history.
 */
export type { Budget, BudgetWindow, KeyRecord, Limits, Policy, SpendWindow, TeamRecord } from "./records.js";
export { WINDOW_COUNTER_GRACE_MS, type WindowClock, windowClock, windowEnd, windowStart } from "./windows.js";
export { credentialOf, digestsEqual, keyDigest, newKeySecret } from "./key-secret.js";
export {
  type AdmitInput,
  type AdmitOutcome,
  type GovernanceStore,
  LEASE_RECORD_RETENTION_MS,
  type Reservation,
  type SettleInput,
  type SpendFigures,
} from "./store/governance-store.js";
export { MemoryGovernanceStore } from "./store/memory-store.js";
export { RedisGovernanceStore, type RedisGovernanceStoreOptions } from "./store/redis-store.js";
export type { DailyUsageRow, UsageEvent, UsageGroupBy, UsageQuery, UsageRow, UsageSink } from "./usage/usage-event.js";
export { MemoryUsageSink, aggregateUsage } from "./usage/memory-usage-sink.js";
export { PostgresUsageSink, type PostgresUsageSinkOptions } from "./usage/postgres-usage-sink.js";
export { GovernanceGate, type GovernanceGateOptions, LEASE_MARGIN_MS } from "./gate/governance-gate.js";
export { LostCallSweeper, type LostCallSweeperOptions, type SweepReport } from "./gate/lost-call-sweeper.js";
export { OUTBOX_PUSH_LUA, type OutboxEntry, type OutboxKeys, RedisOutbox } from "./outbox/redis-outbox.js";
export { OutboxDrain, type OutboxDrainOptions } from "./outbox/outbox-drain.js";
export { type DueCall, RedisOpenCalls } from "./store/redis-open-calls.js";
export { type OpenCall, PROCESS_LOST_STATUS } from "./store/open-call.js";
export type { UnpricedModelPolicy } from "./gate/model-pricing.js";
export {
  type AdminConfig,
  type AdminConfigInput,
  type KeysConfig,
  type KeysConfigInput,
  adminConfigSchema,
  keysConfigSchema,
  parseGovernanceConfig,
  pricesConfigSchema,
} from "./config/governance-config.js";
export {
  type AdminCheck,
  type AdminCheckContext,
  type AdminCheckOptions,
  type AdminKeyEntry,
  type AdminVerdict,
  adminKeyId,
  createAdminCheck,
} from "./admin/admin-check.js";
export {
  ADMIN_PERMISSIONS,
  type AdminPermission,
  type AdminPrincipal,
  type AdminRole,
  parseAdminRole,
  roleAllows,
  strongestRole,
  teamOfRole,
} from "./roles/admin-roles.js";
export { auditEventOf, withoutSecrets } from "./admin/admin-audit.js";
export { auditCsv } from "./admin/audit-route.js";
export type { AuditActor, AuditEvent, AuditQuery, AuditSink, StoredAuditEvent } from "./audit/audit-event.js";
export { GENESIS_HASH, type ChainBreak, canonicalJson, chainHash, chained, verifyChain } from "./audit/audit-chain.js";
export { MemoryAuditSink } from "./audit/memory-audit-sink.js";
export { PostgresAuditSink, type PostgresAuditSinkOptions } from "./audit/postgres-audit-sink.js";
export { OutboxAuditSink, type OutboxAuditSinkOptions } from "./audit/outbox-audit-sink.js";
export { AUDIT_TABLE, ensureAuditTable, eventOfRow, insertChained, queryAuditTable } from "./audit/postgres-audit-table.js";
export { type AuditVerification, verifyAuditDatabase, verifyAuditLog } from "./audit/verify-audit-log.js";
export { adminPrincipalOf, admitAdminKeysPast } from "./admin/admin-auth.js";
export { type AdminRoutesOptions, createAdminRoutes } from "./admin/admin-routes.js";
export { usageCsv } from "./admin/usage-csv.js";
export { apiRefusalError } from "./api/api-refusal.js";
export { estimateInputTokens } from "./api/work-request.js";
export { runtimeDefaultModel } from "./api/gated-runtime.js";
export { governanceMetrics } from "./governance-metrics.js";
export { type Governance, type GovernanceOptions, createGovernance } from "./create-governance.js";
export { type VirtualKeyWebSocket, virtualKeyWebSocket } from "./api/virtual-key-websocket.js";
// `conduit reconcile` runs the same reconciliation as `GET /admin/reconcile`.
export { type ReconcileFigures, type ReconcileOptions, type ReconcileReport, type ReconcileRow, reconcile } from "./reconcile/reconcile.js";
export type { ReconcileProvider, ReportVendor, VendorCostRow, VendorReport, VendorUsageRow } from "./reconcile/vendor-report.js";
export type { ReportFetchOptions } from "./reconcile/report-pages.js";
export { reconcileRange } from "./admin/reconcile-route.js";
