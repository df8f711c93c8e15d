import type { IncomingHttpHeaders } from "node:http";
import type { AuthenticatedUser } from "@conduit-ai/auth";
import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import { type CredentialRule, credentialSourceOf, readCredential } from "@conduit-ai/server-core/internal";
import type { BaseAuthProvider } from "../base-provider.js";
import { AuthProviderError, ProviderInitializationError } from "../errors/auth-errors.js";
import { type MonitoredServer, monitorAuthProvider } from "../health/provider-monitoring.js";
import { createProviderAuthMiddleware } from "../middleware/provider-auth-middleware.js";
import { createAuthorizationRulesMiddleware } from "../rbac/authorization-rules.js";
import { RbacPolicy } from "../rbac/rbac-policy.js";
import { authProviderRegistry } from "../registry/auth-provider-registry.js";
import { MemorySessionStore } from "../sessions/memory-session-store.js";
import { RedisSessionStore, type SessionRedisClient } from "../sessions/redis-session-store.js";
import { SessionManager } from "../sessions/session-manager.js";
import type { SessionStore } from "../sessions/session-store.js";
import { type AuthorizationConfig, parseAuthorizationConfig } from "./authorization-config.js";
import { type SettingsShape, listOf, readSettings, setting, settingsProblem } from "./settings-reader.js";

/** The middleware keys of a provider `auth` config (everything else is the provider's settings). */
export interface ProviderAuthMiddlewareSettings {
  enabled?: boolean;
  /** One path or a list of them. */
  skipPaths?: string | string[];
  headerName?: string;
  cookieName?: string;
  queryParam?: string;
  errorMessage?: string;
  invalidMessage?: string;
  skipDevPlayground?: boolean;
  /** Honor `x-dev-playground` outside `NODE_ENV=development` (see `@conduit-ai/auth`). */
  devPlayground?: boolean;
  /** Realm of the `WWW-Authenticate` challenge (`realm` itself is a provider setting: Keycloak's realm). */
  challengeRealm?: string;
  optional?: boolean;
  timeoutMs?: number;
  /** Context helpers without `ctx` (AsyncLocalStorage). Default false (its cost on Node 20 is in the README). */
  ambientContext?: boolean;
}

/** The config file's `auth` key for a provider type: the middleware keys plus the provider's own settings. */
export interface ProviderAuthConfig extends ProviderAuthMiddlewareSettings {
  type: string;
  /** Sessions: `false` turns them off. Store default: Redis when `REDIS_URL` is set, else memory. */
  sessions?:
    | false
    | { store?: "memory" | "redis"; ttlMs?: number; maxSessionsPerUser?: number; refreshThresholdMs?: number; keyPrefix?: string };
  [setting: string]: unknown;
}

/** Everything the server assembly needs from a provider config. */
export interface ProviderAuthSetup {
  provider: BaseAuthProvider;
  /** The auth middleware, then the authorization rules middleware when there are rules. */
  middleware: MiddlewareDefinition[];
  sessions: SessionManager | undefined;
  /**
   * The same check for surfaces outside the HTTP pipeline (the WebSocket upgrade): the user, or
   * null; throws `AuthProviderUnavailableError` (503) while the identity provider cannot be reached.
   */
  validateToken(token: string): Promise<AuthenticatedUser | null>;
  /** Where the token is looked for (header, cookie, query): the HTTP middleware's rule, for the upgrade. */
  rule: CredentialRule;
  /** The token of a request (an upgrade) by exactly the HTTP middleware's rule (server-core's `readCredential`). */
  extractCredential(request: { headers: IncomingHttpHeaders; url?: string | undefined }): string | undefined;
  /** Puts the identity provider into the server's readiness and `conduit_auth_provider_up` (see `monitorAuthProvider`). */
  monitor(server: MonitoredServer): void;
  close(): Promise<void>;
}

const MIDDLEWARE_KEYS = {
  enabled: setting.boolean(),
  skipPaths: setting.strings(),
  headerName: setting.string(),
  cookieName: setting.string(),
  queryParam: setting.string(),
  errorMessage: setting.string(),
  invalidMessage: setting.string(),
  skipDevPlayground: setting.boolean(),
  devPlayground: setting.boolean(),
  challengeRealm: setting.string(),
  optional: setting.boolean(),
  timeoutMs: setting.number(1),
  ambientContext: setting.boolean(),
} satisfies SettingsShape<ProviderAuthMiddlewareSettings>;

/** True when `type` names a provider type or alias (as opposed to the static `api-key`, `bearer`, `basic`). */
export function isProviderAuthType(type: unknown): boolean {
  return typeof type === "string" && authProviderRegistry.has(type);
}

interface SessionConnection {
  redisUrl?: string | undefined;
  redis?: SessionRedisClient | undefined;
  keyPrefix?: string | undefined;
}

async function sessionsFrom(
  config: ProviderAuthConfig["sessions"],
  type: string,
  connection: SessionConnection,
): Promise<SessionManager | undefined> {
  const { redisUrl, redis } = connection;
  const reachable = redis !== undefined || redisUrl !== undefined;
  if (config === false) return undefined;
  const settings = readSettings<Exclude<ProviderAuthConfig["sessions"], false | undefined>>(
    type,
    config ?? {},
    {
      store: setting.oneOf(["memory", "redis"]),
      ttlMs: setting.number(1000),
      maxSessionsPerUser: setting.number(0),
      refreshThresholdMs: setting.number(0),
      keyPrefix: setting.string(),
    },
    "auth.sessions",
  );
  const kind = settings.store ?? (reachable ? "redis" : "memory");
  if (kind === "redis" && !reachable)
    throw settingsProblem(type, "auth.sessions.store", '"redis" needs the REDIS_URL environment variable');
  const keyPrefix = settings.keyPrefix ?? connection.keyPrefix;
  const prefix = keyPrefix ? { keyPrefix } : {};
  const store: SessionStore =
    kind === "memory"
      ? new MemorySessionStore()
      : redis
        ? new RedisSessionStore(redis, prefix)
        : await RedisSessionStore.connect(redisUrl as string, prefix);
  return new SessionManager({
    store,
    provider: type,
    ...(settings.ttlMs === undefined ? {} : { ttlMs: settings.ttlMs }),
    ...(settings.maxSessionsPerUser === undefined ? {} : { maxSessionsPerUser: settings.maxSessionsPerUser }),
    ...(settings.refreshThresholdMs === undefined ? {} : { refreshThresholdMs: settings.refreshThresholdMs }),
  });
}

/**
 * Builds provider auth from the config file's `auth` key (`{"type": "<provider type or
 * alias>", ...settings}`) and the top-level `authorization` key: the provider (initialized),
 * its sessions (memory, or Redis through `redisUrl`), the auth middleware and the rules
 * middleware (403 `FORBIDDEN` on refusal). Health paths stay public.
 *
 * @example
 * const setup = await createProviderAuthFromConfig(
 *   { type: "keycloak", url: "https://sso.example.com", realm: "conduit", sessions: { store: "redis" } },
 *   { authorization: { rules: [{ path: "/api/tools/*", methods: ["POST"], roles: ["operator"] }] }, redisUrl: process.env.REDIS_URL },
 * );
 * for (const middleware of setup.middleware) server.registerMiddleware(middleware);
 */
export async function createProviderAuthFromConfig(
  auth: unknown,
  options: {
    authorization?: unknown;
    /** Redis for sessions: a client you own (not closed), or a URL connected on demand. */
    redis?: SessionRedisClient;
    redisUrl?: string;
    /** Default key prefix of Redis sessions (`auth.sessions.keyPrefix` wins). Default `conduit:auth:`. */
    keyPrefix?: string;
    alwaysPublicPaths?: string[];
  } = {},
): Promise<ProviderAuthSetup> {
  const config = (typeof auth === "object" && auth !== null && !Array.isArray(auth) ? auth : {}) as ProviderAuthConfig;
  const definition = authProviderRegistry.get(String(config.type));
  const type = definition.type;
  const providerSettings: Record<string, unknown> = { type };
  const middlewareSettings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === "type" || key === "sessions") continue;
    if (Object.hasOwn(MIDDLEWARE_KEYS, key)) middlewareSettings[key] = value;
    else providerSettings[key] = value;
  }
  const middlewareOptions = readSettings<ProviderAuthMiddlewareSettings>(type, middlewareSettings, MIDDLEWARE_KEYS);
  const authorization: AuthorizationConfig | undefined =
    options.authorization === undefined ? undefined : parseAuthorizationConfig(options.authorization);
  const rbac = new RbacPolicy(
    {
      ...(authorization?.superAdminRoles ? { superAdminRoles: authorization.superAdminRoles } : {}),
      ...(authorization?.hierarchy ? { hierarchy: authorization.hierarchy } : {}),
      ...(authorization?.rolePermissions ? { rolePermissions: authorization.rolePermissions } : {}),
    },
    "rbac",
  );
  const sessions = await sessionsFrom(config.sessions, type, options);
  let provider: BaseAuthProvider;
  try {
    provider = authProviderRegistry.create(providerSettings as { type: string }, { sessions: sessions ?? false, rbac });
  } catch (error) {
    await sessions?.close();
    throw error;
  }
  try {
    await provider.initialize?.();
  } catch (error) {
    await sessions?.close();
    // Settings problems say which key; anything else means the provider could not start.
    throw AuthProviderError.isInstance(error)
      ? error
      : new ProviderInitializationError(type, `The ${type} provider failed to initialize: ${(error as Error).message}`, { cause: error });
  }
  const rule: CredentialRule = {
    scheme: "bearer",
    headerName: middlewareOptions.headerName,
    cookieName: middlewareOptions.cookieName,
    queryParam: middlewareOptions.queryParam,
  };
  const middleware: MiddlewareDefinition[] = [];
  if (middlewareOptions.enabled !== false) {
    const { enabled: _enabled, skipPaths = [], challengeRealm, ...rest } = middlewareOptions;
    middleware.push(
      createProviderAuthMiddleware(provider, {
        ...rest,
        ...(challengeRealm === undefined ? {} : { realm: challengeRealm }),
        skipPaths: [...(options.alwaysPublicPaths ?? []), ...listOf(skipPaths)],
      }),
    );
  }
  if (authorization?.rules && authorization.rules.length > 0) {
    middleware.push(createAuthorizationRulesMiddleware({ rules: authorization.rules, policy: rbac, provider }));
  }
  return {
    provider,
    middleware,
    sessions,
    rule,
    extractCredential: (request) => {
      const extraction = readCredential(credentialSourceOf(request), rule);
      return extraction.kind === "token" ? extraction.token : undefined;
    },
    validateToken: async (token) => {
      const result = await provider.authenticateToken(token);
      if (result.valid) return result.user;
      // The identity provider is down: the surface answers 503 with Retry-After, as HTTP does, not a refusal.
      if (result.error.statusCode === 503) throw result.error;
      return null;
    },
    monitor: (server) => monitorAuthProvider(server, provider),
    close: () => provider.cleanup?.() ?? Promise.resolve(),
  };
}

/**
 * The `authorization` key on its own (for static auth): the rules middleware, or none.
 *
 * @example
 * const middleware = createAuthorizationFromConfig({ hierarchy: { admin: ["operator"] }, rules: [...] });
 */
export function createAuthorizationFromConfig(authorization: unknown): MiddlewareDefinition[] {
  const config = parseAuthorizationConfig(authorization);
  if (!config.rules || config.rules.length === 0) {
    // Still checked, so a cycle in an unused hierarchy is reported.
    new RbacPolicy(config, "rbac");
    return [];
  }
  const { rules, ...policy } = config;
  return [createAuthorizationRulesMiddleware({ rules, policy })];
}
