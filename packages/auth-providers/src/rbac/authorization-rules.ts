import type { MiddlewareDefinition, ServerContext } from "@conduit-ai/server-core";
import { pathMatchesFilter } from "@conduit-ai/server-core/internal";
import type { BaseAuthProvider } from "../base-provider.js";
import { InsufficientPermissionsError, MissingTokenError } from "../errors/auth-errors.js";
import { RbacPolicy, type RbacOptions } from "./rbac-policy.js";

/** One rule: requests to `path` (exact, or a prefix ending in `*`) with one of `methods` need these roles and permissions. */
export interface AuthorizationRule {
  path: string;
  /** Default: every method. */
  methods?: string[];
  /** Any one suffices unless `requireAllRoles`. */
  roles?: string[];
  requireAllRoles?: boolean;
  /** All are needed (wildcards in grants: `tools:*`). */
  permissions?: string[];
}

export interface AuthorizationRulesOptions {
  rules: AuthorizationRule[];
  /** The policy (super-admins, hierarchy, role permissions, custom authorize). */
  policy?: RbacPolicy | RbacOptions;
  /** Refusals are reported on it as `auth:unauthorized`. */
  provider?: Pick<BaseAuthProvider, "reportUnauthorized" | "type">;
  /** Default 15: after authentication (10). */
  order?: number;
  /** Rule paths match with and without it, like `skipPaths`. Default `/api`. */
  basePath?: string;
  /** Message of the 403. Default `Insufficient permissions`. */
  message?: string;
}

/** A rule applies when its path matches the request path (with or without `basePath`) or the matched route's pattern. */
function applies(rule: AuthorizationRule, ctx: ServerContext, basePathOf: (path: string) => string | undefined): boolean {
  if (rule.methods && !rule.methods.some((method) => method.toUpperCase() === ctx.method)) return false;
  const candidates = [ctx.path, basePathOf(ctx.path), ctx.route?.fullPath].filter((path): path is string => path !== undefined);
  return candidates.some((path) => pathMatchesFilter(path, rule.path));
}

/**
 * Role and permission rules by path and method, enforced with the 7-step flow: no user →
 * 401; otherwise every matching rule must pass (super-admins pass all) or the request gets
 * 403 `FORBIDDEN`. Rules also match the route pattern, so an odd spelling of a path cannot
 * slip past its rule. Refusals are reported as `auth:unauthorized`.
 *
 * @example
 * server.registerMiddleware(createAuthorizationRulesMiddleware({
 *   policy: { hierarchy: { admin: ["operator"] }, rolePermissions: { operator: ["tools:*"] } },
 *   rules: [{ path: "/api/tools/*", methods: ["POST"], permissions: ["tools:execute"] }],
 * }));
 */
export function createAuthorizationRulesMiddleware(options: AuthorizationRulesOptions): MiddlewareDefinition {
  const policy = options.policy instanceof RbacPolicy ? options.policy : new RbacPolicy(options.policy);
  const rules = options.rules.map((rule) => ({ ...rule, methods: rule.methods?.map((method) => method.toUpperCase()) }));
  const basePath = options.basePath ?? "/api";
  const relative = (path: string) =>
    basePath !== "" && basePath !== "/" && path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined;
  return {
    name: "authorization-rules",
    order: options.order ?? 15,
    handler: async (ctx, next) => {
      const matching = rules.filter((rule) => applies(rule, ctx, relative));
      if (matching.length === 0) return next();
      for (const rule of matching) {
        const decision = await policy.decide(
          ctx.user,
          {
            ...(rule.roles ? { roles: rule.roles } : {}),
            requireAllRoles: rule.requireAllRoles === true,
            ...(rule.permissions ? { permissions: rule.permissions } : {}),
          },
          ctx,
        );
        if (decision.allowed) continue;
        const source = options.provider?.type ?? "rbac";
        const error =
          decision.status === 401
            ? new MissingTokenError(source)
            : new InsufficientPermissionsError(source, options.message ?? "Insufficient permissions");
        options.provider?.reportUnauthorized(error, decision.refusedBy, ctx, ctx.user?.id);
        throw error;
      }
      return next();
    },
  };
}
