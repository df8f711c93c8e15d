/**
 * @conduit-ai/console — the operator console: prebuilt pages (overview, accounts, keys and
 * teams, usage, live requests, health) and `mountConsole`, which serves them behind an admin
 * sign-in on any Conduit server.
 */
export {
  type AdminRequestCheck,
  type AdminVerdict,
  type CredentialUserResolver,
  CONSOLE_PERMISSIONS,
  adminCredentialCheck,
  adminCredentialPrincipal,
  consoleAllows,
  credentialDigest,
  isAdminKey,
} from "./admin-check.js";
export { type ConsoleAccounts, createConsoleApiRoutes } from "./console-api-routes.js";
export { type ConsoleConfig, type ConsoleSsoConfig, parseConsoleConfig } from "./console-config-schema.js";
export {
  type ConsoleAuditEvent,
  type ConsoleAuditLog,
  type ConsolePermission,
  type ConsolePrincipal,
  consoleAuditEvent,
} from "./console-principal.js";
export { type ConsoleSignInClient, type ConsoleSsoOptions, SSO_BINDING_COOKIE } from "./console-sso.js";
export { CONSOLE_CONTENT_SECURITY_POLICY, CONSOLE_HEADERS, consoleGuard, crossSiteReason } from "./console-security.js";
export { ConsoleSessions, DEFAULT_SESSION_TTL_MS } from "./console-sessions.js";
export { type CredentialPresenter, consolePresenter, forwardInProcess, presentAsBearer, presentByRule } from "./forward.js";
export { CONSOLE_ASSETS_DIRECTORY, type ConsoleHost, type ConsoleOptions, mountConsole } from "./mount-console.js";
export { CONSOLE_COOKIE, readCookie, sessionCookie } from "./session-cookie.js";
export {
  type ConsoleSession,
  type ConsoleSessionRedis,
  type ConsoleSessionStore,
  MemoryConsoleSessionStore,
  RedisConsoleSessionStore,
  isSessionId,
  newSessionId,
  sessionKey,
} from "./session-store.js";
