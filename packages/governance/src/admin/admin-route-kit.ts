import { randomBytes } from "node:crypto";
import { type ServerContext, resourceNotFound } from "@conduit-ai/server-core";
import type { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import type { AuditSink } from "../audit/audit-event.js";
import type { KeyRecord, Policy, SpendWindow, TeamRecord } from "../records.js";
import type { ReconcileOptions } from "../reconcile/reconcile.js";
import type { ReconcileProvider } from "../reconcile/vendor-report.js";
import { type AdminPermission, type AdminPrincipal, requirePermission } from "../roles/admin-roles.js";
import type { GovernanceStore, SpendFigures } from "../store/governance-store.js";
import type { UsageSink } from "../usage/usage-event.js";
import { windowClock, windowEnd } from "../windows.js";
import { type AuditedAct, audited } from "./admin-audit.js";
import { adminPrincipalOf } from "./admin-auth.js";
import type { AdminCheck } from "./admin-check.js";
import { keyInScope } from "./admin-scope.js";
import { type AdminStore, adminStore, adminUsage } from "./admin-stores.js";

export interface AdminRoutesOptions {
  store: GovernanceStore;
  usage: UsageSink;
  prefix: string;
  keysSecret: string | undefined;
  check: Pick<AdminCheck, "identify">;
  /** Where every state-changing call leaves its audit event (and `GET /admin/audit` reads). */
  audit: AuditSink;
  isVirtualKey: (credential: string) => Promise<boolean>;
  /** Counts failed admin credentials per address and per credential (429 past the limit). */
  failures?: CredentialFailureGuard;
  /** Providers whose vendor reports `GET /admin/reconcile` reads (those with an admin key). */
  reconcile?: { providers: readonly ReconcileProvider[]; options?: ReconcileOptions };
}

export const newId = (kind: "key" | "team") => `${kind}_${randomBytes(9).toString("base64url")}`;

/** Without undefined members, so a stored record never carries `"x": null`. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/** Each budget with its current window's spend (`spend` of `GET /admin/keys/{id}`). */
function spendWindows(policy: Policy, figures: SpendFigures, nowMs: number): SpendWindow[] {
  return (policy.budgets ?? []).map((budget) => {
    const spentUsd = figures[budget.window] / 1e12;
    return {
      window: budget.window,
      usd: budget.usd,
      spentUsd,
      remainingUsd: Math.max(0, budget.usd - spentUsd),
      ...(budget.window === "total" ? {} : { resetsAt: new Date(windowEnd(budget.window, nowMs)).toISOString() }),
    };
  });
}

/** The caller, refused with 403 unless the role grants `permission`. */
export type AllowedCheck = (ctx: Pick<ServerContext, "state">, permission: AdminPermission) => AdminPrincipal;

/** What every admin route group is built from: the guarded stores, the caller's checks, the audited act. */
export interface AdminRouteKit {
  options: AdminRoutesOptions;
  /** Store outages are 503 STORE_UNAVAILABLE with Retry-After, never a 500. */
  store: AdminStore;
  usage: Pick<UsageSink, "query">;
  allowed: AllowedCheck;
  /** A state-changing act: the role checked inside, so a refusal leaves its audit event too. */
  act<T>(ctx: ServerContext, what: AuditedAct, run: (what: AuditedAct, principal: AdminPrincipal) => Promise<T>): Promise<T>;
  teamOrThrow(id: string): Promise<TeamRecord>;
  /** The key `id` if the caller's scope holds it (a team-admin's team), else 404. */
  keyOf(principal: AdminPrincipal, id: string): Promise<KeyRecord>;
  withSpend<T extends Policy>(record: T, scope: { keyId: string } | { team: string }): Promise<T & { spend: SpendWindow[] }>;
}

/**
 * The kit of one admin API: its stores behind the outage guard, and the checks and the audit
 * every route uses.
 *
 * @example
 * const kit = adminRouteKit(options); const routes = [...keyRoutes(kit), ...teamRoutes(kit)];
 */
export function adminRouteKit(options: AdminRoutesOptions): AdminRouteKit {
  const store = adminStore(options.store);
  const keyOrThrow = async (id: string) => {
    const key = await store.getKey(id);
    if (!key) throw resourceNotFound("KEY_NOT_FOUND", `Key "${id}" not found`, { id });
    return key;
  };
  return {
    options,
    store,
    usage: adminUsage(options.usage),
    allowed: (ctx, permission) => {
      const principal = adminPrincipalOf(ctx);
      requirePermission(principal.role, permission);
      return principal;
    },
    act: (ctx, what, run) => {
      const principal = adminPrincipalOf(ctx);
      return audited(options.audit, ctx, principal, what, (filled) => run(filled, principal));
    },
    teamOrThrow: async (id) => {
      const team = await store.getTeam(id);
      if (!team) throw resourceNotFound("TEAM_NOT_FOUND", `Team "${id}" not found`, { id });
      return team;
    },
    keyOf: async (principal, id) => keyInScope(principal, await keyOrThrow(id)),
    withSpend: async (record, scope) => {
      const now = Date.now();
      return { ...record, spend: spendWindows(record, await store.spendOf(scope, windowClock(now)), now) };
    },
  };
}
