import { ALWAYS_PUBLIC_PATHS, createAuthFromConfig, createAuthRoutes, createStaticCredentialValidator } from "@conduit-ai/auth";
import type { SessionRedisClient } from "@conduit-ai/auth-providers";
import type { RuntimeTokenProvider } from "@conduit-ai/runtime";
import { type BaseServerAdapter, type MiddlewareDefinition, type RouteGroup, importOptionalDependency } from "@conduit-ai/server-core";
import type { CredentialRule } from "@conduit-ai/server-core/internal";
import type { WebSocketAuthConfig } from "@conduit-ai/websocket";
import { UsageError } from "./usage-error.js";

/** What the config file's `auth` and `authorization` keys add to a server. */
export interface AuthSetup {
  middleware: MiddlewareDefinition[];
  /** `/api/auth/me`, `/api/auth/sessions` …, mounted whenever `auth` is configured. */
  routes: RouteGroup | undefined;
  /** The WebSocket upgrade asks for the same credentials as HTTP (fail closed). */
  webSocket: WebSocketAuthConfig;
  /** The provider, for the runtime's per-call token checks. */
  tokenProvider: RuntimeTokenProvider | undefined;
  /** Adds the identity provider to the server's readiness and metrics (provider auth; a no-op for static auth). */
  attach(server: BaseServerAdapter<unknown>): void;
  /** The user a credential names (roles included), or null: the operator console signs in users with role `admin` by it. */
  validateCredential?: (credential: string) => Promise<{ roles: string[] } | null>;
  /** Where and how the auth reads a credential: the console presents a signed-in user's credential this way when it forwards. */
  credentialRule?: CredentialRule;
  close(): Promise<void>;
}

const STATIC_TYPES = new Set(["api-key", "bearer", "basic"]);

function loadAuthProviders(): Promise<typeof import("@conduit-ai/auth-providers")> {
  return importOptionalDependency("@conduit-ai/auth-providers", () => import("@conduit-ai/auth-providers"), {
    feature: "the auth section's provider types",
  });
}

const describe = (error: unknown) => (error as Error).message;

/** The HTTP auth's credential rule as the WebSocket options: the upgrade reads the same header, cookie and query parameter. */
function ruleOptions(rule: CredentialRule): Pick<WebSocketAuthConfig, "headerName" | "cookieName" | "queryParam"> {
  return {
    ...(rule.headerName ? { headerName: rule.headerName } : {}),
    ...(rule.cookieName ? { cookieName: rule.cookieName } : {}),
    ...(rule.queryParam ? { queryParam: rule.queryParam } : {}),
  };
}

/**
 * Reads `auth` (static `api-key`/`bearer`/`basic` on `@conduit-ai/auth`, or `{"type": "<provider
 * type or alias>", ...}` on `@conduit-ai/auth-providers`, loaded only then) and the top-level
 * `authorization` rules. A bad value is a `UsageError` naming it. Redis sessions use `redis`
 * (the assembly's client, any topology) under `keyPrefix` + `auth:`.
 *
 * @example
 * const auth = await setupAuth(file, process.env);
 * for (const middleware of auth.middleware) server.registerMiddleware(middleware);
 */
export async function setupAuth(
  file: { [key: string]: unknown },
  env: NodeJS.ProcessEnv,
  redis?: SessionRedisClient,
  keyPrefix = env.REDIS_KEY_PREFIX || "conduit:",
  /** Paths answered without the server's auth (the operator console signs in on its own). */
  publicPaths: readonly string[] = [],
): Promise<AuthSetup> {
  const { authorization } = file;
  const auth =
    publicPaths.length > 0 &&
    typeof file.auth === "object" &&
    file.auth !== null &&
    STATIC_TYPES.has(String((file.auth as { type?: unknown }).type))
      ? { ...file.auth, skipPaths: [...(((file.auth as { skipPaths?: unknown }).skipPaths as string[] | undefined) ?? []), ...publicPaths] }
      : file.auth;
  const none: AuthSetup = {
    middleware: [],
    routes: undefined,
    webSocket: { strategy: "none" },
    tokenProvider: undefined,
    attach: () => undefined,
    close: async () => undefined,
  };
  if (auth === undefined && authorization === undefined) return none;
  const type = (auth as { type?: unknown } | undefined)?.type;

  if (auth === undefined || STATIC_TYPES.has(String(type))) {
    let middleware: MiddlewareDefinition[] = [];
    let credentials: ReturnType<typeof createStaticCredentialValidator>;
    try {
      if (auth !== undefined) {
        middleware = createAuthFromConfig(auth);
        credentials = createStaticCredentialValidator(auth);
      }
    } catch (error) {
      throw new UsageError(`Config file: invalid auth: ${describe(error)}`);
    }
    if (authorization !== undefined) {
      const { createAuthorizationFromConfig } = await loadAuthProviders();
      try {
        middleware.push(...createAuthorizationFromConfig(authorization));
      } catch (error) {
        throw new UsageError(`Config file: invalid authorization: ${describe(error)}`);
      }
    }
    // Same rule (header, cookie, query parameter), same parsing, same secrets as HTTP (fail closed).
    const webSocket: WebSocketAuthConfig = credentials
      ? {
          strategy: credentials.strategy,
          ...ruleOptions(credentials.rule),
          validate: (credential) => {
            const user = credentials?.validate(credential);
            return user ? { ...user } : null;
          },
        }
      : { strategy: "none" };
    const validateCredential = credentials ? async (credential: string) => credentials?.validate(credential) ?? null : undefined;
    return {
      ...none,
      middleware,
      routes: auth === undefined ? undefined : createAuthRoutes(),
      webSocket,
      ...(validateCredential ? { validateCredential } : {}),
      ...(credentials ? { credentialRule: credentials.rule } : {}),
    };
  }

  const providers = await loadAuthProviders();
  if (!providers.isProviderAuthType(type)) {
    const known = ["api-key", "bearer", "basic", ...providers.BUILTIN_PROVIDER_TYPES];
    throw new UsageError(`Config file: invalid auth: auth.type: expected one of ${known.join(", ")} (or a provider alias such as oidc)`);
  }
  let setup: Awaited<ReturnType<typeof providers.createProviderAuthFromConfig>>;
  try {
    setup = await providers.createProviderAuthFromConfig(auth, {
      authorization,
      // Sessions share the assembly's fail-fast Redis client and its key prefix.
      ...(redis ? { redis, keyPrefix: `${keyPrefix}auth:` } : {}),
      alwaysPublicPaths: [...ALWAYS_PUBLIC_PATHS, ...publicPaths],
    });
  } catch (error) {
    const prefix = (error as { provider?: string }).provider === "rbac" ? "invalid authorization" : "invalid auth";
    throw new UsageError(`Config file: ${prefix}: ${describe(error)}`);
  }
  return {
    middleware: setup.middleware,
    routes: providers.createAuthRoutes(setup.sessions ? { sessions: setup.sessions } : {}),
    webSocket: {
      strategy: "bearer",
      ...ruleOptions(setup.rule),
      validate: async (token) => {
        const user = await setup.validateToken(token);
        return user ? { ...user } : null;
      },
    },
    tokenProvider: setup.provider,
    attach: (server) => setup.monitor(server),
    validateCredential: async (credential) => (await setup.validateToken(credential)) ?? null,
    credentialRule: setup.rule,
    close: () => setup.close(),
  };
}
