import { type RouteDefinition, defineRoute, rawResponse } from "@conduit-ai/server-core";
import type { KeyRecord } from "../records.js";
import { badRequest, teamAdminForbidden } from "./admin-refusals.js";
import type { AdminRouteKit } from "./admin-route-kit.js";
import { scopeOf } from "./admin-scope.js";
import { usageQuerySchema } from "./admin-schemas.js";
import { usageCsv } from "./usage-csv.js";

/**
 * `GET /admin/usage`: the usage history grouped by key, team, user, model or day, as JSON or CSV,
 * with the names of keys and teams; a team-admin's by key or team, their own.
 *
 * @example
 * const route = usageRoute(adminRouteKit(options));
 */
export function usageRoute(kit: AdminRouteKit): RouteDefinition {
  return defineRoute({
    method: "GET",
    path: "/admin/usage",
    absolute: true,
    summary: "Usage and spend grouped by key, team, user, model or day (JSON or CSV); a team-admin's by key or team, their own",
    schema: { query: usageQuerySchema },
    handler: async (ctx) => {
      const principal = kit.allowed(ctx, "usage.read");
      const scope = scopeOf(principal);
      const groupBy = ctx.query.groupBy;
      // The history has no team filter on other groupings yet: a team-admin reads by key or team only.
      if (scope !== undefined && groupBy !== "key" && groupBy !== "team")
        throw teamAdminForbidden(principal, `A team-admin reads usage grouped by key or team, not by ${groupBy}`, {
          groupBy: ["key", "team"],
        });
      const to = ctx.query.to ? new Date(ctx.query.to) : new Date();
      const from = ctx.query.from ? new Date(ctx.query.from) : new Date(to.getTime() - 30 * 86_400_000);
      if (from > to) throw badRequest("from", "from must not be after to");
      let rows = await kit.usage.query({ groupBy, from, to });
      if (groupBy === "key" || groupBy === "team") {
        const records = groupBy === "key" ? await kit.store.listKeys() : await kit.store.listTeams();
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
  });
}
