import { type QueryValues, type RouteDefinition, type ServerContext, defineRoute, resourceNotFound } from "@conduit-ai/server-core";
import { keyDigest, newKeySecret } from "../key-secret.js";
import type { KeyRecord } from "../records.js";
import { type AdminPrincipal, requirePermission } from "../roles/admin-roles.js";
import type { AuditedAct } from "./admin-audit.js";
import { badRequest } from "./admin-refusals.js";
import { type AdminRouteKit, defined, newId } from "./admin-route-kit.js";
import { scopeOf, teamInScope, withinTeamPolicy } from "./admin-scope.js";
import { createKeySchema, rotateKeySchema, updateKeySchema } from "./admin-schemas.js";

/**
 * `/admin/keys`: create (the secret in this answer only), list, read with spend, change, revoke
 * and rotate. A team-admin's keys are their team's.
 *
 * @example
 * const routes = keyRoutes(adminRouteKit(options));
 */
export function keyRoutes(kit: AdminRouteKit): RouteDefinition[] {
  /** An audited act on the key `:id` in the caller's scope, with `keys.write`: its event names the key's team and state before. */
  const onKey = <T>(
    ctx: ServerContext<unknown, QueryValues, { id: string }>,
    action: string,
    run: (key: KeyRecord, what: AuditedAct, principal: AdminPrincipal) => Promise<T>,
  ) =>
    kit.act(ctx, { action, target: { type: "key", id: ctx.params.id } }, async (what, principal) => {
      requirePermission(principal.role, "keys.write");
      const key = await kit.keyOf(principal, ctx.params.id);
      what.team = key.team;
      what.before = key;
      return run(key, what, principal);
    });
  return [
    defineRoute({
      method: "POST",
      path: "/admin/keys",
      absolute: true,
      successStatus: 201,
      summary: "Create a virtual key (its secret appears in this answer only)",
      schema: { body: createKeySchema },
      handler: (ctx) =>
        kit.act(ctx, { action: "key.create", target: { type: "key", id: "" }, team: ctx.body.team }, async (what, principal) => {
          requirePermission(principal.role, "keys.write");
          // A team-admin's keys are their team's: named or not, and never another's.
          const scope = scopeOf(principal);
          const body = scope === undefined ? ctx.body : { ...ctx.body, team: teamInScope(principal, ctx.body.team ?? scope) };
          what.team = body.team;
          const team = body.team ? await kit.store.getTeam(body.team) : undefined;
          if (body.team && !team) throw badRequest("team", `Unknown team "${body.team}"`);
          withinTeamPolicy(principal, team, body);
          const secret = newKeySecret(kit.options.prefix);
          const record: KeyRecord = defined({ id: newId("key"), ...body, hint: secret.slice(-4), createdAt: new Date().toISOString() });
          what.target.id = record.id;
          await kit.store.createKey(record, keyDigest(secret, kit.options.keysSecret));
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
        const scope = scopeOf(kit.allowed(ctx, "keys.read"));
        const keys = await kit.store.listKeys();
        return scope === undefined ? keys : keys.filter((key) => key.team === scope);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/admin/keys/:id",
      absolute: true,
      summary: "One key with its spend per budget window",
      handler: async (ctx) => kit.withSpend(await kit.keyOf(kit.allowed(ctx, "keys.read"), ctx.params.id), { keyId: ctx.params.id }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/admin/keys/:id",
      absolute: true,
      summary: "Change a key's name, models, limits, budgets, expiry or metadata",
      schema: { body: updateKeySchema },
      handler: (ctx) =>
        onKey(ctx, "key.update", async (key, what, principal) => {
          const updated = defined({ ...key, ...ctx.body });
          withinTeamPolicy(principal, key.team ? await kit.store.getTeam(key.team) : undefined, updated);
          await kit.store.updateKey(updated);
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
        onKey(ctx, "key.revoke", async () => {
          if (!(await kit.store.deleteKey(ctx.params.id)))
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
        onKey(ctx, "key.rotate", async (key, what) => {
          const graceSeconds = ctx.body?.graceSeconds ?? 0;
          const secret = newKeySecret(kit.options.prefix);
          const previousKeyValidUntil = new Date(Date.now() + graceSeconds * 1000).toISOString();
          await kit.store.rotateKey(key.id, keyDigest(secret, kit.options.keysSecret), Date.parse(previousKeyValidUntil));
          const updated = { ...key, hint: secret.slice(-4) };
          await kit.store.updateKey(updated);
          what.after = { ...updated, previousKeyValidUntil };
          return { ...updated, key: secret, previousKeyValidUntil };
        }),
    }),
  ];
}
