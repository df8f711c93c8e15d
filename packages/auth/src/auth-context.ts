import { AuthenticationError, AuthorizationError, type ServerContext } from "@conduit-ai/server-core";
import type { AuthContext, AuthenticatedUser } from "./auth-types.js";
import { hasPermissionIn } from "./permissions.js";

// A WeakMap rather than `ctx.state`: the credential must never travel with state that
// other middleware might log or serialize, and it dies with the request.
const records = new WeakMap<ServerContext, AuthContext>();

/** Records a successful authentication on the request (done by the auth middleware). */
export function setAuthContext(ctx: ServerContext, record: AuthContext): void {
  records.set(ctx, record);
  ctx.user = record.user;
}

/**
 * The authentication record of this request: user, credential type, token and claims.
 *
 * @example
 * const auth = getAuthContext(ctx); // undefined on public or anonymous requests
 */
export function getAuthContext(ctx: ServerContext): AuthContext | undefined {
  const record = records.get(ctx);
  if (record) return record;
  // A user set by other code (tests, custom middleware) still counts.
  return ctx.user ? { user: ctx.user, type: "custom", token: "", claims: {} } : undefined;
}

/**
 * @example
 * const user = getCurrentUser(ctx); // ctx.user, or undefined
 */
export function getCurrentUser(ctx: ServerContext): AuthenticatedUser | undefined {
  return ctx.user;
}

/**
 * @example
 * if (!isAuthenticated(ctx)) return { greeting: "hello stranger" };
 */
export function isAuthenticated(ctx: ServerContext): boolean {
  return ctx.user !== undefined;
}

/**
 * The current user; throws 401 `AuthenticationError` when there is none.
 *
 * @example
 * handler: (ctx) => ({ owner: requireAuth(ctx).id })
 */
export function requireAuth(ctx: ServerContext): AuthenticatedUser {
  if (!ctx.user) throw new AuthenticationError();
  return ctx.user;
}

/**
 * Checks the user's own permissions, with wildcards (`tools:*`, `*`).
 *
 * @example
 * if (hasPermission(ctx, "memory:write")) { ... }
 */
export function hasPermission(ctx: ServerContext, permission: string): boolean {
  return ctx.user !== undefined && hasPermissionIn(ctx.user.permissions, permission);
}

/**
 * @example
 * if (hasRole(ctx, "admin")) { ... }
 */
export function hasRole(ctx: ServerContext, role: string): boolean {
  return ctx.user?.roles.includes(role) ?? false;
}

/**
 * Throws 401 without a user and 403 `FORBIDDEN` without the permission.
 *
 * @example
 * requirePermission(ctx, "tools:execute");
 */
export function requirePermission(ctx: ServerContext, permission: string): AuthenticatedUser {
  const user = requireAuth(ctx);
  if (!hasPermissionIn(user.permissions, permission)) throw new AuthorizationError("Insufficient permissions");
  return user;
}

/**
 * Throws 401 without a user and 403 `FORBIDDEN` without the role.
 *
 * @example
 * requireRole(ctx, "admin");
 */
export function requireRole(ctx: ServerContext, role: string): AuthenticatedUser {
  const user = requireAuth(ctx);
  if (!user.roles.includes(role)) throw new AuthorizationError("Insufficient role");
  return user;
}
