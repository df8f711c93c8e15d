/**
 * @conduit-ai/auth — framework-neutral authentication and authorization middleware for
 * Conduit: bearer, API key, Basic and custom credentials, roles and permissions with
 * hierarchical wildcards, context helpers, and a static config for demos.
 */
export { type ApiKeyAuthOptions, createApiKeyAuthMiddleware } from "./api-key-middleware.js";
export { ApiKeyStore } from "./api-key-store.js";
export {
  type StaticAuthConfig,
  type StaticBasicUserConfig,
  type StaticUserConfig,
  parseStaticAuthConfig,
} from "./auth-config-schema.js";
export {
  getAuthContext,
  getCurrentSession,
  getCurrentUser,
  hasPermission,
  hasRole,
  isAuthenticated,
  requireAuth,
  requirePermission,
  requireRole,
  runWithAuthContext,
  setAuthContext,
  updateAuthContext,
} from "./auth-context.js";
export { type AuthRoutesOptions, type AuthSessionSource, type AuthSessionSummary, createAuthRoutes } from "./auth-routes.js";
export {
  ALWAYS_PUBLIC_PATHS,
  type StaticCredentialValidator,
  createAuthFromConfig,
  createStaticCredentialValidator,
} from "./auth-from-config.js";
export { AUTH_MIDDLEWARE_ORDER, DEFAULT_AUTH_ERROR_MESSAGE, DEFAULT_INVALID_MESSAGE, createAuthMiddleware } from "./auth-middleware.js";
export type {
  AuthContext,
  AuthMiddlewareOptions,
  AuthRefusal,
  AuthSessionInfo,
  AuthResult,
  AuthType,
  AuthValidationResult,
  AuthenticatedUser,
  TokenValidator,
} from "./auth-types.js";
export { toAuthenticatedUser } from "./authenticated-user.js";
export {
  AUTHORIZATION_MIDDLEWARE_ORDER,
  type AuthorizationOptions,
  type AuthorizationPolicyOptions,
  type AuthorizationRefusal,
  authorizationDecision,
  createAuthorizationMiddleware,
  isAuthorized,
} from "./authorization-middleware.js";
export { type BasicAuthOptions, createBasicAuthMiddleware } from "./basic-auth-middleware.js";
export { type BearerAuthOptions, createBearerAuthMiddleware } from "./bearer-middleware.js";
export { secretsEqual } from "./constant-time.js";
export { decodeBasicCredential, parseAuthorization, readCookie } from "@conduit-ai/server-core/internal";
export { credentialFromHeader, defaultHeaderName, extractCredential } from "./extract-token.js";
export { DEV_PLAYGROUND_HEADER, devPlaygroundEnabled, isDevPlaygroundRequest } from "./dev-playground.js";
export { type PermissionMiddlewareOptions, createPermissionMiddleware } from "./permission-middleware.js";
export {
  type RoleHierarchy,
  type RolePermissions,
  effectivePermissions,
  expandRoles,
  findRoleCycle,
  hasPermissionIn,
  permissionCovers,
} from "./permissions.js";
export { type RoleMiddlewareOptions, createRoleMiddleware } from "./role-middleware.js";
export type { SchemeMiddlewareOptions } from "./scheme-middleware.js";
