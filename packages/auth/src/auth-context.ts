import { AsyncLocalStorage } from "node:async_hooks";
import { AuthenticationError, AuthorizationError, type ServerContext } from "@conduit-ai/server-core";
import type { AuthContext, AuthSessionInfo, AuthenticatedUser } from "./auth-types.js";
import { hasPermissionIn } from "./permissions.js";

// A symbol-keyed slot on the context rather than `ctx.state`: the credential must never travel
// with state that other middleware might log or serialize (symbol keys are skipped by
// JSON.stringify and Object.keys), and it dies with the request. Not a WeakMap: one entry per
// request in a WeakMap costs the garbage collector more than the whole lookup saves.
const RECORD = Symbol.for("@conduit-ai/auth/record");
type WithRecord = ServerContext & { [RECORD]?: AuthContext };
const records = {
  get: (ctx: ServerContext) => (ctx as WithRecord)[RECORD],
  set: (ctx: ServerContext, record: AuthContext) => {
    (ctx as WithRecord)[RECORD] = record;
  },
};
// The same record for code that has no `ctx` at hand (services, tools, loggers deep in the
// handler's call tree). One store per async chain, so concurrent requests never see each other's.
const storage = new AsyncLocalStorage<AuthContext>();

/** Records a successful authentication on the request (done by the auth middleware). */
export function setAuthContext(ctx: ServerContext, record: AuthContext): void {
  records.set(ctx, record);
  ctx.user = record.user;
}

/**
 * Adds what is learned after the credential was checked (the session, the token's claims)
 * to the request's record; the context helpers see it at once, with or without `ctx`.
 *
 * @example
 * updateAuthContext(ctx, { session: { id: session.id, expiresAt: session.expiresAt } });
 */
export function updateAuthContext(ctx: ServerContext, changes: Partial<Pick<AuthContext, "session" | "claims" | "provider">>): void {
  const record = records.get(ctx);
  if (record) Object.assign(record, changes);
}

/**
 * Runs `work` with `record` as the ambient auth context of its whole async call tree, so
 * the helpers below work without a `ctx` argument (the auth middleware wraps `next()` in it).
 *
 * @example
 * await runWithAuthContext({ user, type: "bearer", token, claims: {} }, () => service.doWork());
 */
export function runWithAuthContext<T>(record: AuthContext, work: () => T): T {
  return storage.run(record, work);
}

/**
 * The authentication record of this request: user, credential type, token, claims and
 * session. Without `ctx` it reads the request running in the current async context.
 *
 * @example
 * const auth = getAuthContext(ctx); // undefined on public or anonymous requests
 * const same = getAuthContext();    // from anywhere inside the handler's call tree
 */
export function getAuthContext(ctx?: ServerContext): AuthContext | undefined {
  if (ctx === undefined) return storage.getStore();
  const record = records.get(ctx);
  if (record) return record;
  // A user set by other code (tests, custom middleware) still counts.
  return ctx.user ? { user: ctx.user, type: "custom", token: "", claims: {} } : undefined;
}

function userOf(ctx: ServerContext | undefined): AuthenticatedUser | undefined {
  return ctx === undefined ? storage.getStore()?.user : ctx.user;
}

/**
 * @example
 * const user = getCurrentUser(ctx); // ctx.user, or undefined
 * const same = getCurrentUser();    // inside the request's async context
 */
export function getCurrentUser(ctx?: ServerContext): AuthenticatedUser | undefined {
  return userOf(ctx);
}

/**
 * The session the request was authenticated with (provider auth with sessions), or undefined.
 *
 * @example
 * const session = getCurrentSession(); // { id, expiresAt } | undefined
 */
export function getCurrentSession(ctx?: ServerContext): AuthSessionInfo | undefined {
  return getAuthContext(ctx)?.session;
}

/**
 * @example
 * if (!isAuthenticated(ctx)) return { greeting: "hello stranger" };
 */
export function isAuthenticated(ctx?: ServerContext): boolean {
  return userOf(ctx) !== undefined;
}

/**
 * The current user; throws 401 `AuthenticationError` when there is none.
 *
 * @example
 * handler: (ctx) => ({ owner: requireAuth(ctx).id })
 */
export function requireAuth(ctx?: ServerContext): AuthenticatedUser {
  const user = userOf(ctx);
  if (!user) throw new AuthenticationError();
  return user;
}

/**
 * Checks the user's own permissions, with wildcards (`tools:*`, `*`).
 *
 * @example
 * if (hasPermission(ctx, "memory:write")) { ... }
 * if (hasPermission("memory:write")) { ... } // ambient request
 */
export function hasPermission(ctxOrPermission: ServerContext | string, permission?: string): boolean {
  const [ctx, wanted] = split(ctxOrPermission, permission);
  const user = userOf(ctx);
  return user !== undefined && hasPermissionIn(user.permissions, wanted);
}

/**
 * @example
 * if (hasRole(ctx, "admin")) { ... }
 * if (hasRole("admin")) { ... } // ambient request
 */
export function hasRole(ctxOrRole: ServerContext | string, role?: string): boolean {
  const [ctx, wanted] = split(ctxOrRole, role);
  return userOf(ctx)?.roles.includes(wanted) ?? false;
}

/**
 * Throws 401 without a user and 403 `FORBIDDEN` without the permission.
 *
 * @example
 * requirePermission(ctx, "tools:execute");
 * requirePermission("tools:execute"); // ambient request
 */
export function requirePermission(ctxOrPermission: ServerContext | string, permission?: string): AuthenticatedUser {
  const [ctx, wanted] = split(ctxOrPermission, permission);
  const user = requireAuth(ctx);
  if (!hasPermissionIn(user.permissions, wanted)) throw new AuthorizationError("Insufficient permissions");
  return user;
}

/**
 * Throws 401 without a user and 403 `FORBIDDEN` without the role.
 *
 * @example
 * requireRole(ctx, "admin");
 * requireRole("admin"); // ambient request
 */
export function requireRole(ctxOrRole: ServerContext | string, role?: string): AuthenticatedUser {
  const [ctx, wanted] = split(ctxOrRole, role);
  const user = requireAuth(ctx);
  if (!user.roles.includes(wanted)) throw new AuthorizationError("Insufficient role");
  return user;
}

/** `(ctx, name)` or `(name)` (ambient request). */
function split(first: ServerContext | string, second: string | undefined): [ServerContext | undefined, string] {
  if (typeof first === "string") return [undefined, first];
  return [first, second ?? ""];
}
