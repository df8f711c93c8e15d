/**
 * @conduit-ai/auth-providers — identity providers for Conduit on jose: `custom`, `jwt`,
 * `oauth2` (introspection / userinfo / discovery) and eight vendors (Auth0, Clerk, Firebase,
 * Supabase, Cognito, Keycloak, Better Auth, WorkOS); a registry; sessions in memory, Redis or
 * your own store; the 7-step role enforcement flow; the auth route group.
 */
export { BaseAuthProvider, type ProviderOptions, type VerifiedToken, sessionBinding } from "./base-provider.js";
export { CLAIM_MAPPING_SETTINGS, type ClaimMapping, claimsToUser, collectClaims, readClaim, stringsFrom } from "./claims.js";
export { type AuthorizationConfig, parseAuthorizationConfig } from "./config/authorization-config.js";
export {
  type ProviderAuthConfig,
  type ProviderAuthSetup,
  createAuthorizationFromConfig,
  createProviderAuthFromConfig,
  isProviderAuthType,
} from "./config/provider-auth-from-config.js";
export { type SettingsIssue, type SettingsShape, readSettings, setting } from "./config/settings-reader.js";
export {
  AuthErrorCode,
  AUTH_PROVIDER_RETRY_AFTER_MS,
  AuthProviderError,
  AuthProviderUnavailableError,
  AuthRateLimitError,
  AuthenticationFailedError,
  InsufficientPermissionsError,
  InvalidConfigurationError,
  InvalidTokenError,
  MissingTokenError,
  ProviderAPIError,
  ProviderInitializationError,
  SessionExpiredError,
  SessionNotFoundError,
  TokenExpiredError,
  UserNotFoundError,
  isProviderUnavailable,
  isTokenRefusal,
} from "./errors/auth-errors.js";
export { ProviderAvailability, type ReachabilityReport } from "./health/provider-availability.js";
export { AUTH_PROVIDER_UP_METRIC, type MonitoredServer, monitorAuthProvider } from "./health/provider-monitoring.js";
export { AuthLookupCode, AuthLookupError } from "./errors/registry-errors.js";
export { type ProviderAuthMiddlewareOptions, createProviderAuthMiddleware } from "./middleware/provider-auth-middleware.js";
export { type Auth0ProviderSettings, createAuth0Provider } from "./providers/auth0-provider.js";
export { type BetterAuthProviderSettings, createBetterAuthProvider } from "./providers/better-auth-provider.js";
export { type ClerkProviderSettings, createClerkProvider } from "./providers/clerk-provider.js";
export { type CognitoProviderSettings, createCognitoProvider } from "./providers/cognito-provider.js";
export { CustomProvider, type CustomProviderSettings, createCustomProvider } from "./providers/custom-provider.js";
export { FIREBASE_JWKS_URL, type FirebaseProviderSettings, createFirebaseProvider } from "./providers/firebase-provider.js";
export { type JwtProviderSettings, createJwtProvider } from "./providers/jwt-provider.js";
export { type ClaimProfile, JwtTokenProvider } from "./providers/jwt-token-provider.js";
export { type KeycloakProviderSettings, createKeycloakProvider } from "./providers/keycloak-provider.js";
export { OAuth2Provider, type OAuth2ProviderSettings, createOAuth2Provider } from "./providers/oauth2-provider.js";
export { type SupabaseProviderSettings, createSupabaseProvider } from "./providers/supabase-provider.js";
export type { VendorCommonSettings } from "./providers/vendor-provider.js";
export { type WorkOSProviderSettings, createWorkOSProvider } from "./providers/workos-provider.js";
export { type OidcSignIn, type OidcSignInSettings, type OidcSignInStart, createOidcSignIn } from "./sso/oidc-sign-in.js";
export type { FirebaseServiceAccount } from "./providers/user-management/firebase-users.js";
export {
  USER_OPERATION_NAMES,
  type UserOperationName,
  type UserOperations,
  attachUserOperations,
} from "./providers/user-management/user-operations.js";
export { type AuthorizationRule, type AuthorizationRulesOptions, createAuthorizationRulesMiddleware } from "./rbac/authorization-rules.js";
export { DEFAULT_SUPER_ADMIN_ROLES, type RbacDecision, type RbacOptions, RbacPolicy } from "./rbac/rbac-policy.js";
export {
  type AuthProviderConfig,
  type BuiltinProviderConfig,
  AuthProviderRegistry,
  authProviderRegistry,
  createAuthProvider,
} from "./registry/auth-provider-registry.js";
export {
  type AuthProviderDefinition,
  BUILTIN_PROVIDER_TYPES,
  type BuiltinProviderName,
  type BuiltinProviderSettings,
  type BuiltinProviderType,
  type CanonicalProviderType,
  builtinProviderDefinitions,
  defineAuthProvider,
} from "./registry/provider-definitions.js";
export { MemorySessionStore } from "./sessions/memory-session-store.js";
export { RedisSessionStore, type RedisSessionStoreOptions, type SessionRedisClient } from "./sessions/redis-session-store.js";
export { SessionManager, type SessionManagerOptions, boundSessionId } from "./sessions/session-manager.js";
export type { SessionStore } from "./sessions/session-store.js";
export { type JwtVerifier, type JwtVerifierOptions, createJwtVerifier } from "./tokens/jwt-verifier.js";
export type {
  AuthCapability,
  AuthProvider,
  AuthSession,
  AuthenticatedRequest,
  AuthenticatedUser,
  AuthorizationRequirement,
  CreateSessionOptions,
  ProviderHealth,
  ProviderMetadata,
  TokenSource,
  TokenValidationResult,
  UnauthorizedEvent,
} from "./types.js";
// The context helpers and the auth route group live in @conduit-ai/auth; re-exported so one import serves.
export {
  createAuthRoutes,
  getAuthContext,
  getCurrentSession,
  getCurrentUser,
  hasPermission,
  hasRole,
  isAuthenticated,
  requireAuth,
  requirePermission,
  requireRole,
} from "@conduit-ai/auth";
