import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import { type AuthorizationPolicyOptions, createAuthorizationMiddleware } from "./authorization-middleware.js";

export interface PermissionMiddlewareOptions extends AuthorizationPolicyOptions {
  requiredPermissions: string[];
  /** Default true (docs/spec.md): every permission is needed; false → any one. */
  requireAll?: boolean;
}

/**
 * Requires permissions of `ctx.user`, with hierarchical wildcards (`tools:*`, `*`) and
 * the permissions of its (expanded) roles. No user → 401, refused → 403 `FORBIDDEN`.
 *
 * @example
 * createPermissionMiddleware({ requiredPermissions: ["tools:execute"], rolePermissions: { operator: ["tools:*"] } });
 */
export function createPermissionMiddleware(options: PermissionMiddlewareOptions): MiddlewareDefinition {
  const { requiredPermissions, requireAll = true, ...policy } = options;
  return createAuthorizationMiddleware({
    name: "permission",
    ...policy,
    requiredPermissions,
    requireAllPermissions: requireAll,
  });
}
