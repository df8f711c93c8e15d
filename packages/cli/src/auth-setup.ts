import { ALWAYS_PUBLIC_PATHS, createAuthFromConfig, createAuthRoutes, createStaticCredentialValidator } from "@conduit-ai/auth";
import type { SessionRedisClient } from "@conduit-ai/auth-providers";
import type { RuntimeTokenProvider } from "@conduit-ai/runtime";
import { type MiddlewareDefinition, type RouteGroup, importOptionalDependency } from "@conduit-ai/server-core";
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
  close(): Promise<void>;
}

const STATIC_TYPES = new Set(["api-key", "bearer", "basic"]);

function loadAuthProviders(): Promise<typeof import("@conduit-ai/auth-providers")> {
  return importOptionalDependency("@conduit-ai/auth-providers", () => import("@conduit-ai/auth-providers"), {
    feature: "the auth section's provider types",
  });
}

const describe = (error: unknown) => (error as Error).message;

/**
 * Reads `auth` (static `api-key`/`bearer`/`basic` on `@conduit-ai/auth`, or `{"type": "<provider
 * type or alias>", ...}` on `@conduit-ai/auth-providers`, loaded only then) and the top-level
 * `authorization` rules. A bad value is a `UsageError` naming it. Redis sessions use `redis`
 * (the assembly's client for `REDIS_URL`).
 *
 * @example
 * const auth = await setupAuth(file, process.env);
 * for (const middleware of auth.middleware) server.registerMiddleware(middleware);
 */
export async function setupAuth(file: { [key: string]: unknown }, env: NodeJS.ProcessEnv, redis?: SessionRedisClient): Promise<AuthSetup> {
  const { auth, authorization } = file;
  const none: AuthSetup = {
    middleware: [],
    routes: undefined,
    webSocket: { strategy: "none" },
    tokenProvider: undefined,
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
    // Same header, same parsing, same secrets as HTTP (fail closed).
    const webSocket: WebSocketAuthConfig = credentials
      ? {
          strategy: "custom",
          extractToken: (request) => credentials?.extractCredential(request.headers),
          validate: (credential) => {
            const user = credentials?.validate(credential);
            return user ? { ...user } : null;
          },
        }
      : { strategy: "none" };
    return { ...none, middleware, routes: auth === undefined ? undefined : createAuthRoutes(), webSocket };
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
      // Sessions share the assembly's fail-fast Redis client (REDIS_URL) and its key prefix.
      ...(redis ? { redis, keyPrefix: `${env.REDIS_KEY_PREFIX || "conduit:"}auth:` } : {}),
      alwaysPublicPaths: ALWAYS_PUBLIC_PATHS,
    });
  } catch (error) {
    const prefix = (error as { provider?: string }).provider === "rbac" ? "invalid authorization" : "invalid auth";
    throw new UsageError(`Config file: ${prefix}: ${describe(error)}`);
  }
  return {
    middleware: setup.middleware,
    routes: providers.createAuthRoutes(setup.sessions ? { sessions: setup.sessions } : {}),
    webSocket: {
      strategy: "custom",
      extractToken: (request) => setup.extractCredential(request.headers),
      validate: async (token) => {
        const user = await setup.validateToken(token);
        return user ? { ...user } : null;
      },
    },
    tokenProvider: setup.provider,
    close: () => setup.close(),
  };
}
