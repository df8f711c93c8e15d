import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import { type AuthorizationPolicyOptions, createAuthorizationMiddleware } from "./authorization-middleware.js";

export interface RoleMiddlewareOptions extends AuthorizationPolicyOptions {
  requiredRoles: string[];
  /** Default false: any one of `requiredRoles` suffices. */
  requireAll?: boolean;
}

/**
 * Requires roles of `ctx.user` (after the hierarchy is applied). No user → 401, missing
 * role → 403 `FORBIDDEN`. Register it after an auth middleware (its order is 15).
 *
 * @example
 * route.middleware = [createRoleMiddleware({ requiredRoles: ["admin", "operator"] })]; // either role
 */
export function createRoleMiddleware(options: RoleMiddlewareOptions): MiddlewareDefinition {
  const { requiredRoles, requireAll = false, ...policy } = options;
  return createAuthorizationMiddleware({
    name: "role",
    message: "Insufficient role",
    ...policy,
    requiredRoles,
    requireAllRoles: requireAll,
  });
}
