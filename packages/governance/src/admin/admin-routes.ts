import { randomBytes } from "node:crypto";
import {
  AuthorizationError,
  type MiddlewareDefinition,
  type RouteDefinition,
  type RouteGroup,
  ServerAdapterError,
  type ServerContext,
  defineRoute,
  rawResponse,
  resourceNotFound,
} from "@conduit-ai/server-core";
import type { CredentialFailureGuard } from "@conduit-ai/server-core/internal";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord, Policy, SpendWindow, TeamRecord } from "../records.js";
import type { GovernanceStore, SpendFigures } from "../store/governance-store.js";
import type { UsageSink } from "../usage/usage-event.js";
import { windowClock, windowEnd } from "../windows.js";
import type { AuditSink } from "../audit/audit-event.js";
import type { AdminCheck, AdminVerdict } from "./admin-check.js";
import { adminAuthMiddleware, adminPrincipalOf } from "./admin-auth.js";
import { type AuditedAct, audited } from "./admin-audit.js";
import { type AdminPermission, type AdminPrincipal, requirePermission } from "../roles/admin-roles.js";
import { keyInScope, scopeOf, teamInScope, withinTeamPolicy } from "./admin-scope.js";
import { auditRoute } from "./audit-route.js";
import { reconcileRoute } from "./reconcile-route.js";
import type { ReconcileOptions } from "../reconcile/reconcile.js";
import type { ReconcileProvider } from "../reconcile/vendor-report.js";
import { adminStore, adminUsage } from "./admin-stores.js";
import {
  createKeySchema,
  createTeamSchema,
  rotateKeySchema,
  updateKeySchema,
  updateTeamSchema,
  usageQuerySchema,
} from "./admin-schemas.js";
import { usageCsv } from "./usage-csv.js";

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

const newId = (kind: "key" | "team") => `${kind}_${randomBytes(9).toString("base64url")}`;

function badRequest(field: string, message: string): ServerAdapterError {
  return new ServerAdapterError(message, {
    code: "VALIDATION_ERROR",
    statusCode: 400,
    category: "VALIDATION",
    details: { errors: [{ field, message }] },
  });
}

function conflict(message: string): ServerAdapterError {
  return new ServerAdapterError(message, { code: "CONFLICT", statusCode: 409, category: "VALIDATION" });
}

/**
 * A body on the admin API is JSON, said so: a form or `text/plain` body (what a cross-site HTML
 * form can send without a preflight) is refused with 415 before anything reads it.
 */
function jsonBodiesOnly(): MiddlewareDefinition {
  return {
    name: "governance-admin-json-only",
    order: 5,
    handler: async (ctx, next) => {
      const hasBody = ctx.header("transfer-encoding") !== undefined || Number(ctx.header("content-length") ?? 0) > 0;
      const contentType = ctx.header("content-type") ?? "";
      const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
      if (hasBody && mediaType !== "application/json") {
        throw new ServerAdapterError(
          `The admin API takes JSON bodies only (content-type: application/json), not "${contentType.slice(0, 100)}"`,
          {
            code: "UNSUPPORTED_MEDIA_TYPE",
            statusCode: 415,
            category: "VALIDATION",
            details: { contentType: contentType.slice(0, 100), supported: ["application/json"] },
          },
        );
      }
      await next();
    },
  };
}

/** Without undefined members, so a stored record never carries `"x": null`. */
function defined<T extends object>(value: T): T {
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

/**
 * The admin API (absolute paths, Conduit's envelope): keys, teams and usage. Every route sits
 * behind the admin guard; a key's secret appears only in the answers that create or rotate it.
 *
 * @example
 * adapter.registerRouteGroup(createAdminRoutes({ store, usage, prefix: "sk-conduit-", keysSecret, check, isVirtualKey }));
 */
export function createAdminRoutes(options: AdminRoutesOptions): RouteGroup {
  // Store outages are 503 STORE_UNAVAILABLE with Retry-After, never a 500.
  const store = adminStore(options.store);
  const usage = adminUsage(options.usage);
  const keyOrThrow = async (id: string) => {
    const key = await store.getKey(id);
    if (!key) throw resourceNotFound("KEY_NOT_FOUND", `Key "${id}" not found`, { id });
    return key;
  };
  const teamOrThrow = async (id: string) => {
    const team = await store.getTeam(id);
    if (!team) throw resourceNotFound("TEAM_NOT_FOUND", `Team "${id}" not found`, { id });
    return team;
  };
  const withSpend = async <T extends Policy>(record: T, scope: { keyId: string } | { team: string }) => {
    const now = Date.now();
    return { ...record, spend: spendWindows(record, await store.spendOf(scope, windowClock(now)), now) };
  };

  /** The caller, refused with 403 unless the role grants `permission`. */
  const allowed = (ctx: Pick<ServerContext, "state">, permission: AdminPermission): AdminPrincipal => {
    const principal = adminPrincipalOf(ctx);
    requirePermission(principal.role, permission);
    return principal;
  };
  /** A state-changing act: the role checked inside, so a refusal leaves its audit event too. */
  const act = <T>(ctx: ServerContext, what: AuditedAct, run: (what: AuditedAct, principal: AdminPrincipal) => Promise<T>) => {
    const principal = adminPrincipalOf(ctx);
    return audited(options.audit, ctx, principal, what, (filled) => run(filled, principal));
  };
  const keyOf = async (principal: AdminPrincipal, id: string) => keyInScope(principal, await keyOrThrow(id));

  const routes: RouteDefinition[] = [
    defineRoute({
      method: "POST",
      path: "/admin/keys",
      absolute: true,
      successStatus: 201,
      summary: "Create a virtual key (its secret appears in this answer only)",
      schema: { body: createKeySchema },
      handler: (ctx) =>
        act(ctx, { action: "key.create", target: { type: "key", id: "" }, team: ctx.body.team }, async (what, principal) => {
          requirePermission(principal.role, "keys.write");
          // A team-admin's keys are their team's: named or not, and never another's.
          const scope = scopeOf(principal);
          const body = scope === undefined ? ctx.body : { ...ctx.body, team: teamInScope(principal, ctx.body.team ?? scope) };
          what.team = body.team;
          const team = body.team ? await store.getTeam(body.team) : undefined;
          if (body.team && !team) throw badRequest("team", `Unknown team "${body.team}"`);
          withinTeamPolicy(principal, team, body);
          const secret = newKeySecret(options.prefix);
          const record: KeyRecord = defined({ id: newId("key"), ...body, hint: secret.slice(-4), createdAt: new Date().toISOString() });
          what.target.id = record.id;
          await store.createKey(record, keyDigest(secret, options.keysSecret));
          what.after = record;
          return { ...record, key: secret };
        }),
    }),
    defineRoute({
      method: "GET",
      path: "/admin/keys",
      absolute: true,
      summary: "List virtual keys (no secrets); a team-admin sees their team's",
      handler: async (ctx) => {
        const scope = scopeOf(allowed(ctx, "keys.read"));
        const keys = await store.listKeys();
        return scope === undefined ? keys : keys.filter((key) => key.team === scope);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/admin/keys/:id",
      absolute: true,
      summary: "One key with its spend per budget window",
      handler: async (ctx) => withSpend(await keyOf(allowed(ctx, "keys.read"), ctx.params.id), { keyId: ctx.params.id }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/admin/keys/:id",
      absolute: true,
      summary: "Change a key's name, models, limits, budgets, expiry or metadata",
      schema: { body: updateKeySchema },
      handler: (ctx) =>
        act(ctx, { action: "key.update", target: { type: "key", id: ctx.params.id } }, async (what, principal) => {
          requirePermission(principal.role, "keys.write");
          const key = await keyOf(principal, ctx.params.id);
          what.team = key.team;
          what.before = key;
          const updated = defined({ ...key, ...ctx.body });
          withinTeamPolicy(principal, key.team ? await store.getTeam(key.team) : undefined, updated);
          await store.updateKey(updated);
          what.after = updated;
          return updated;
        }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/admin/keys/:id",
      absolute: true,
      summary: "Revoke a key, at once in every process",
      handler: (ctx) =>
        act(ctx, { action: "key.revoke", target: { type: "key", id: ctx.params.id } }, async (what, principal) => {
          requirePermission(principal.role, "keys.write");
          const key = await keyOf(principal, ctx.params.id);
          what.team = key.team;
          what.before = key;
          if (!(await store.deleteKey(ctx.params.id)))
            throw resourceNotFound("KEY_NOT_FOUND", `Key "${ctx.params.id}" not found`, { id: ctx.params.id });
          return { id: ctx.params.id, revoked: true };
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/admin/keys/:id/rotate",
      absolute: true,
      summary: "A new secret; the old one works for graceSeconds, then never",
      schema: { body: rotateKeySchema.optional() },
      handler: (ctx) =>
        act(ctx, { action: "key.rotate", target: { type: "key", id: ctx.params.id } }, async (what, principal) => {
          requirePermission(principal.role, "keys.write");
          const key = await keyOf(principal, ctx.params.id);
          what.team = key.team;
          what.before = key;
          const graceSeconds = ctx.body?.graceSeconds ?? 0;
          const secret = newKeySecret(options.prefix);
          const previousKeyValidUntil = new Date(Date.now() + graceSeconds * 1000).toISOString();
          await store.rotateKey(key.id, keyDigest(secret, options.keysSecret), Date.parse(previousKeyValidUntil));
          const updated = { ...key, hint: secret.slice(-4) };
          await store.updateKey(updated);
          what.after = { ...updated, previousKeyValidUntil };
          return { ...updated, key: secret, previousKeyValidUntil };
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/admin/teams",
      absolute: true,
      successStatus: 201,
      summary: "Create a team: its limits and budgets cap all its keys together",
      schema: { body: createTeamSchema },
      handler: (ctx) =>
        act(ctx, { action: "team.create", target: { type: "team", id: ctx.body.id ?? "" } }, async (what, principal) => {
          requirePermission(principal.role, "teams.write");
          const { id, ...body } = ctx.body;
          if (id && (await store.getTeam(id))) throw conflict(`Team "${id}" exists`);
          const record: TeamRecord = defined({ id: id ?? newId("team"), ...body, createdAt: new Date().toISOString() });
          what.target.id = record.id;
          what.team = record.id;
          await store.createTeam(record);
          what.after = record;
          return record;
        }),
    }),
    defineRoute({
      method: "GET",
      path: "/admin/teams",
      absolute: true,
      summary: "List teams; a team-admin sees their own",
      handler: async (ctx) => {
        const scope = scopeOf(allowed(ctx, "teams.read"));
        const teams = await store.listTeams();
        return scope === undefined ? teams : teams.filter((team) => team.id === scope);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/admin/teams/:id",
      absolute: true,
      summary: "One team with its spend per budget window",
      handler: async (ctx) => {
        const id = teamInScope(allowed(ctx, "teams.read"), ctx.params.id);
        return withSpend(await teamOrThrow(id), { team: id });
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/admin/teams/:id",
      absolute: true,
      summary: "Change a team's name, models, limits or budgets",
      schema: { body: updateTeamSchema },
      handler: (ctx) =>
        act(ctx, { action: "team.update", target: { type: "team", id: ctx.params.id }, team: ctx.params.id }, async (what, principal) => {
          // Another team's id is a 404 for a team-admin before their own team's is a 403.
          teamInScope(principal, ctx.params.id);
          requirePermission(principal.role, "teams.write");
          const team = await teamOrThrow(ctx.params.id);
          what.before = team;
          const updated = defined({ ...team, ...ctx.body });
          await store.updateTeam(updated);
          what.after = updated;
          return updated;
        }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/admin/teams/:id",
      absolute: true,
      summary: "Delete a team that has no keys left",
      handler: (ctx) =>
        act(ctx, { action: "team.delete", target: { type: "team", id: ctx.params.id }, team: ctx.params.id }, async (what, principal) => {
          teamInScope(principal, ctx.params.id);
          requirePermission(principal.role, "teams.write");
          what.before = await teamOrThrow(ctx.params.id);
          if ((await store.listKeys()).some((key) => key.team === ctx.params.id))
            throw conflict(`Team "${ctx.params.id}" still has keys; revoke them first`);
          await store.deleteTeam(ctx.params.id);
          return { id: ctx.params.id, deleted: true };
        }),
    }),
    defineRoute({
      method: "GET",
      path: "/admin/usage",
      absolute: true,
      summary: "Usage and spend grouped by key, team, user, model or day (JSON or CSV); a team-admin's by key or team, their own",
      schema: { query: usageQuerySchema },
      handler: async (ctx) => {
        const principal = allowed(ctx, "usage.read");
        const scope = scopeOf(principal);
        const groupBy = ctx.query.groupBy;
        // The history has no team filter on other groupings yet: a team-admin reads by key or team only.
        if (scope !== undefined && groupBy !== "key" && groupBy !== "team")
          throw new AuthorizationError(`A team-admin reads usage grouped by key or team, not by ${groupBy}`, {
            code: "ADMIN_ROLE_FORBIDDEN",
            details: { role: principal.role, groupBy: ["key", "team"] },
          });
        const to = ctx.query.to ? new Date(ctx.query.to) : new Date();
        const from = ctx.query.from ? new Date(ctx.query.from) : new Date(to.getTime() - 30 * 86_400_000);
        if (from > to) throw badRequest("from", "from must not be after to");
        let rows = await usage.query({ groupBy, from, to });
        if (groupBy === "key" || groupBy === "team") {
          const records = groupBy === "key" ? await store.listKeys() : await store.listTeams();
          const names = new Map<string, string>(records.map((record) => [record.id, record.name]));
          for (const row of rows) {
            const name = names.get(row.group);
            if (name !== undefined) row.name = name;
          }
          if (scope !== undefined) {
            const own =
              groupBy === "team"
                ? new Set([scope])
                : new Set((records as KeyRecord[]).filter((key) => key.team === scope).map((key) => key.id));
            rows = rows.filter((row) => own.has(row.group));
          }
        }
        if (ctx.query.format === "csv") return rawResponse(usageCsv(rows), { headers: { "content-type": "text/csv; charset=utf-8" } });
        return rows;
      },
    }),
    auditRoute(options.audit, allowed),
    reconcileRoute(options.usage, options.reconcile?.providers ?? [], allowed, options.reconcile?.options),
  ];
  return {
    prefix: "",
    tags: ["admin"],
    // Same-origin only: no CORS answer (a browser page elsewhere must not read or drive the admin API).
    // Out of the per-address request limit: failed credentials have their own limiter (`failures`),
    // and an operator's console page of many calls must not lock its office address out.
    routes: routes.map((route) => ({ ...route, cors: false as const, rateLimit: false as const })),
    middleware: [jsonBodiesOnly(), adminAuthMiddleware(options.check, options.isVirtualKey, options.failures)],
  };
}

export type { AdminVerdict };
