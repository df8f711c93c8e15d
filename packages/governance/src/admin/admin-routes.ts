import { type MiddlewareDefinition, type RouteGroup, ServerAdapterError } from "@conduit-ai/server-core";
import { adminAuthMiddleware } from "./admin-auth.js";
import type { AdminVerdict } from "./admin-check.js";
import { type AdminRoutesOptions, adminRouteKit } from "./admin-route-kit.js";
import { auditRoute } from "./audit-route.js";
import { keyRoutes } from "./key-routes.js";
import { reconcileRoute } from "./reconcile-route.js";
import { teamRoutes } from "./team-routes.js";
import { usageRoute } from "./usage-route.js";

export type { AdminRoutesOptions };

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

/**
 * The admin API (absolute paths, Conduit's envelope): keys, teams and usage. Every route sits
 * behind the admin guard; a key's secret appears only in the answers that create or rotate it.
 *
 * @example
 * adapter.registerRouteGroup(createAdminRoutes({ store, usage, prefix: "sk-conduit-", keysSecret, check, isVirtualKey }));
 */
export function createAdminRoutes(options: AdminRoutesOptions): RouteGroup {
  const kit = adminRouteKit(options);
  const routes = [
    ...keyRoutes(kit),
    ...teamRoutes(kit),
    usageRoute(kit),
    auditRoute(options.audit, kit.allowed),
    reconcileRoute(options.usage, options.reconcile?.providers ?? [], kit.allowed, options.reconcile?.options),
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
