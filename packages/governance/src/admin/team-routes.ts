import { type QueryValues, type RouteDefinition, type ServerContext, defineRoute } from "@conduit-ai/server-core";
import type { TeamRecord } from "../records.js";
import { requirePermission } from "../roles/admin-roles.js";
import type { AuditedAct } from "./admin-audit.js";
import { conflict } from "./admin-refusals.js";
import { type AdminRouteKit, defined, newId } from "./admin-route-kit.js";
import { scopeOf, teamInScope } from "./admin-scope.js";
import { createTeamSchema, updateTeamSchema } from "./admin-schemas.js";

/**
 * `/admin/teams`: create, list, read with spend, change and delete (once it has no keys). A
 * team-admin reads and changes their own team only.
 *
 * @example
 * const routes = teamRoutes(adminRouteKit(options));
 */
export function teamRoutes(kit: AdminRouteKit): RouteDefinition[] {
  /** An audited act on the team `:id`, with `teams.write`: its event names the team's state before. */
  const onTeam = <T>(
    ctx: ServerContext<unknown, QueryValues, { id: string }>,
    action: string,
    run: (team: TeamRecord, what: AuditedAct) => Promise<T>,
  ) =>
    kit.act(ctx, { action, target: { type: "team", id: ctx.params.id }, team: ctx.params.id }, async (what, principal) => {
      // Another team's id is a 404 for a team-admin before their own team's is a 403.
      teamInScope(principal, ctx.params.id);
      requirePermission(principal.role, "teams.write");
      const team = await kit.teamOrThrow(ctx.params.id);
      what.before = team;
      return run(team, what);
    });
  return [
    defineRoute({
      method: "POST",
      path: "/admin/teams",
      absolute: true,
      successStatus: 201,
      summary: "Create a team: its limits and budgets cap all its keys together",
      schema: { body: createTeamSchema },
      handler: (ctx) =>
        kit.act(ctx, { action: "team.create", target: { type: "team", id: ctx.body.id ?? "" } }, async (what, principal) => {
          requirePermission(principal.role, "teams.write");
          const { id, ...body } = ctx.body;
          if (id && (await kit.store.getTeam(id))) throw conflict(`Team "${id}" exists`);
          const record: TeamRecord = defined({ id: id ?? newId("team"), ...body, createdAt: new Date().toISOString() });
          what.target.id = record.id;
          what.team = record.id;
          await kit.store.createTeam(record);
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
        const scope = scopeOf(kit.allowed(ctx, "teams.read"));
        const teams = await kit.store.listTeams();
        return scope === undefined ? teams : teams.filter((team) => team.id === scope);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/admin/teams/:id",
      absolute: true,
      summary: "One team with its spend per budget window",
      handler: async (ctx) => {
        const id = teamInScope(kit.allowed(ctx, "teams.read"), ctx.params.id);
        return kit.withSpend(await kit.teamOrThrow(id), { team: id });
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/admin/teams/:id",
      absolute: true,
      summary: "Change a team's name, models, limits or budgets",
      schema: { body: updateTeamSchema },
      handler: (ctx) =>
        onTeam(ctx, "team.update", async (team, what) => {
          const updated = defined({ ...team, ...ctx.body });
          await kit.store.updateTeam(updated);
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
        onTeam(ctx, "team.delete", async () => {
          if ((await kit.store.listKeys()).some((key) => key.team === ctx.params.id))
            throw conflict(`Team "${ctx.params.id}" still has keys; revoke them first`);
          await kit.store.deleteTeam(ctx.params.id);
          return { id: ctx.params.id, deleted: true };
        }),
    }),
  ];
}
