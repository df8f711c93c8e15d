import { AuthenticationError, AuthorizationError, type MiddlewareDefinition, type ServerContext } from "@conduit-ai/server-core";
import type { AuthenticatedUser } from "./auth-types.js";
import { type RoleHierarchy, type RolePermissions, effectivePermissions, expandRoles, hasPermissionIn } from "./permissions.js";

/** Runs after authentication (10). */
export const AUTHORIZATION_MIDDLEWARE_ORDER = 15;

/** Policy options shared by the role and permission middleware (SPEC "Role-based enforcement flow"). */
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

/** The decision of the enforcement flow for one user. */
export async function isAuthorized(user: AuthenticatedUser, ctx: ServerContext, options: AuthorizationOptions): Promise<boolean> {
  const superAdmins = options.superAdminRoles ?? [];
  if (user.roles.some((role) => superAdmins.includes(role))) return true;
  const roles = expandRoles(user.roles, options.roleHierarchy);
  const permissions = effectivePermissions(user.permissions, roles, options.rolePermissions);
  if (options.authorize) {
    try {
      if ((await options.authorize(user, ctx)) !== true) return false;
    } catch {
      return false;
    }
  }
  const requiredRoles = options.requiredRoles ?? [];
  if (requiredRoles.length > 0) {
    const holds = (role: string) => roles.includes(role);
    const rolesMet = options.requireAllRoles === true ? requiredRoles.every(holds) : requiredRoles.some(holds);
    if (!rolesMet) return false;
  }
  const requiredPermissions = options.requiredPermissions ?? [];
  if (requiredPermissions.length > 0) {
    const holds = (permission: string) => hasPermissionIn(permissions, permission);
    const permissionsMet = options.requireAllPermissions === false ? requiredPermissions.some(holds) : requiredPermissions.every(holds);
    if (!permissionsMet) return false;
  }
  return true;
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
