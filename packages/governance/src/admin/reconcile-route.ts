import { type RouteDefinition, defineRoute, storeCall } from "@conduit-ai/server-core";
import { z } from "zod";
import { type ReconcileOptions, reconcile } from "../reconcile/reconcile.js";
import type { ReconcileProvider } from "../reconcile/vendor-report.js";
import type { UsageSink } from "../usage/usage-event.js";
import { badRequest, teamAdminForbidden } from "./admin-refusals.js";
import type { AllowedCheck } from "./admin-route-kit.js";
import { scopeOf } from "./admin-scope.js";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a UTC day YYYY-MM-DD");

/** `GET /admin/reconcile` query. */
export const reconcileQuerySchema = z.strictObject({
  provider: z.string().min(1).max(100),
  from: day,
  to: day,
});

/** A vendor's daily buckets cover a year at most in one reconciliation. */
const MAX_DAYS = 366;
/** Summing the days of a large history may take a while; bounded all the same. */
const USAGE_QUERY_DEADLINE_MS = 15_000;

/** The checked range: real days, `from` not after `to`, at most `MAX_DAYS`. */
export function reconcileRange(from: string, to: string): { from: string; to: string } {
  for (const [field, value] of [
    ["from", from],
    ["to", to],
  ] as const)
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value)
      throw badRequest(field, `${field} is not a day: "${value}"`);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
  if (span < 0) throw badRequest("from", "from must not be after to");
  if (span >= MAX_DAYS) throw badRequest("to", `at most ${MAX_DAYS} days at once`);
  return { from, to };
}

/**
 * `GET /admin/reconcile?provider=&from=&to=`: the vendor's own usage and cost reports beside
 * Conduit's usage history, per UTC day × model, with the drift in tokens and dollars. Vendor
 * reports are the whole organization's, so a team-admin is refused.
 */
export function reconcileRoute(
  usage: UsageSink,
  providers: readonly ReconcileProvider[],
  allowed: AllowedCheck,
  options: ReconcileOptions = {},
): RouteDefinition {
  return defineRoute({
    method: "GET",
    path: "/admin/reconcile",
    absolute: true,
    summary: "The vendor's usage and cost reports beside Conduit's usage history, per day and model, with the drift",
    schema: { query: reconcileQuerySchema },
    handler: async (ctx) => {
      const principal = allowed(ctx, "usage.read");
      if (scopeOf(principal) !== undefined)
        throw teamAdminForbidden(principal, "A vendor's reports are the whole organization's: a team-admin cannot reconcile them");
      const range = reconcileRange(ctx.query.from, ctx.query.to);
      const provider = providers.find((candidate) => candidate.name === ctx.query.provider);
      if (!provider)
        throw badRequest(
          "provider",
          `No provider "${ctx.query.provider}" with an adminKey (reconcilable: ${providers.map((entry) => entry.name).join(", ") || "none"})`,
        );
      const daily = usage.dailyUsage?.bind(usage);
      if (!daily) throw badRequest("provider", `The usage history (${usage.kind}) cannot sum usage per day`);
      return reconcile(provider, range, (days) => storeCall("usage-history", () => daily(days), USAGE_QUERY_DEADLINE_MS), options);
    },
  });
}
