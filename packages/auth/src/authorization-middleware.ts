import { AuthenticationError, AuthorizationError, type MiddlewareDefinition, type ServerContext } from "@conduit-ai/server-core";
import type { AuthenticatedUser } from "./auth-types.js";
import { type RoleHierarchy, type RolePermissions, effectivePermissions, expandRoles, hasPermissionIn } from "./permissions.js";

/** Runs after authentication (10). */
export const AUTHORIZATION_MIDDLEWARE_ORDER = 15;

/** Policy options shared by the role and permission middleware (docs/spec.md "Role-based enforcement flow"). */
export interface AuthorizationPolicyOptions {
  /** Role → inherited roles, expanded transitively before any check. */
  roleHierarchy?: RoleHierarchy;
  /** Role → granted permissions, added to the user's own. */
  rolePermissions?: RolePermissions;
  /** Holders of any of these roles bypass every check. Default none. */
  superAdminRoles?: string[];
  /** A custom rule that may deny (false → 403). Throwing also denies. */
  authorize?: (user: AuthenticatedUser, ctx: ServerContext) => boolean | Promise<boolean>;
  /** Message of the 403. */
  message?: string;
  order?: number;
  name?: string;
  paths?: string[];
  excludePaths?: string[];
}

export interface AuthorizationOptions extends AuthorizationPolicyOptions {
  requiredRoles?: string[];
  /** Default false: any one role suffices. */
  requireAllRoles?: boolean;
  requiredPermissions?: string[];
  /** Default true: every permission is needed. */
  requireAllPermissions?: boolean;
}

/** Which step of the enforcement flow refused. */
export type AuthorizationRefusal = "authorize" | "roles" | "permissions";

/**
 * The enforcement flow for one user, saying which step refused: super-admin bypass, roles
 * expanded through the hierarchy, effective permissions, custom `authorize`, roles (any, or
 * all with `requireAllRoles`), permissions (all, or any with `requireAllPermissions: false`).
 *
 * @example
 * const decision = await authorizationDecision(user, ctx, { requiredRoles: ["editor"] });
 * if (!decision.allowed) console.log(decision.refusedBy); // "roles"
 */
export async function authorizationDecision(
  user: AuthenticatedUser,
  ctx: ServerContext | undefined,
  options: AuthorizationOptions,
): Promise<{ allowed: true } | { allowed: false; refusedBy: AuthorizationRefusal }> {
  const superAdmins = options.superAdminRoles ?? [];
  if (user.roles.some((role) => superAdmins.includes(role))) return { allowed: true };
  const roles = expandRoles(user.roles, options.roleHierarchy);
  const permissions = effectivePermissions(user.permissions, roles, options.rolePermissions);
  if (options.authorize) {
    try {
      if ((await options.authorize(user, ctx as ServerContext)) !== true) return { allowed: false, refusedBy: "authorize" };
    } catch {
      return { allowed: false, refusedBy: "authorize" };
    }
  }
  const requiredRoles = options.requiredRoles ?? [];
  if (requiredRoles.length > 0) {
    const holds = (role: string) => roles.includes(role);
    const rolesMet = options.requireAllRoles === true ? requiredRoles.every(holds) : requiredRoles.some(holds);
    if (!rolesMet) return { allowed: false, refusedBy: "roles" };
  }
  const requiredPermissions = options.requiredPermissions ?? [];
  if (requiredPermissions.length > 0) {
    const holds = (permission: string) => hasPermissionIn(permissions, permission);
    const permissionsMet = options.requireAllPermissions === false ? requiredPermissions.some(holds) : requiredPermissions.every(holds);
    if (!permissionsMet) return { allowed: false, refusedBy: "permissions" };
  }
  return { allowed: true };
}

/** The decision of the enforcement flow for one user. */
export async function isAuthorized(user: AuthenticatedUser, ctx: ServerContext, options: AuthorizationOptions): Promise<boolean> {
  return (await authorizationDecision(user, ctx, options)).allowed;
}

/**
 * The spec's enforcement flow as middleware: no user → 401 `AUTH_REQUIRED`; super-admin
 * roles pass; roles expanded through the hierarchy; effective permissions = own + per
 * role; custom `authorize`, then roles, then permissions, any refusal → 403 `FORBIDDEN`.
 * Place it after an auth middleware.
 *
 * @example
 * createAuthorizationMiddleware({ requiredRoles: ["editor"], requiredPermissions: ["docs:write"], roleHierarchy: { admin: ["editor"] } });
 */
export function createAuthorizationMiddleware(options: AuthorizationOptions): MiddlewareDefinition {
  const definition: MiddlewareDefinition = {
    name: options.name ?? "authorization",
    order: options.order ?? AUTHORIZATION_MIDDLEWARE_ORDER,
    handler: async (ctx, next) => {
      const user = ctx.user;
      if (!user) throw new AuthenticationError();
      if (!(await isAuthorized(user, ctx, options))) throw new AuthorizationError(options.message ?? "Insufficient permissions");
      return next();
    },
  };
  if (options.paths) definition.paths = [...options.paths];
  if (options.excludePaths) definition.excludePaths = [...options.excludePaths];
  return definition;
}
