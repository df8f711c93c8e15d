import { type AuthMiddlewareOptions, createAuthMiddleware, updateAuthContext } from "@conduit-ai/auth";
import { type MiddlewareDefinition, ServerAdapterError, type ServerContext, StoreUnavailableError } from "@conduit-ai/server-core";
import { type BaseAuthProvider, sessionBinding } from "../base-provider.js";
import { AuthProviderError, AuthProviderUnavailableError } from "../errors/auth-errors.js";
import type { AuthSession } from "../types.js";

export interface ProviderAuthMiddlewareOptions extends Omit<AuthMiddlewareOptions, "type" | "validate"> {
  /** Reuse or create a session per request (needs the provider's sessions). Default: when the provider has sessions. */
  sessions?: boolean;
}

/**
 * The spec's request authentication flow on a provider: public paths pass; the token is read
 * from the `Authorization: Bearer` header, then `cookieName`, `queryParam`, `extractToken`;
 * the provider validates it (refused, expired, wrong issuer or audience, unsigned → 401,
 * never 500; the identity provider unreachable, answering 5xx or slower than `timeoutMs` → 503
 * `AUTH_PROVIDER_UNAVAILABLE` with `Retry-After`, still without a user; tokens verified before
 * the outage keep working from the cache); the user, token, claims and
 * session become the request's auth context (also ambient for `getCurrentUser()` with
 * `ambientContext: true`); then `onAuthenticated`. Every refusal emits `auth:unauthorized`
 * on the provider. A session store outage answers 503 `STORE_UNAVAILABLE`.
 *
 * @example
 * const provider = createAuthProvider({ type: "keycloak", url: "https://sso.example.com", realm: "conduit" });
 * server.registerMiddleware(createProviderAuthMiddleware(provider, { skipPaths: ["/api/docs*"] }));
 */
export function createProviderAuthMiddleware(
  provider: BaseAuthProvider,
  options: ProviderAuthMiddlewareOptions = {},
): MiddlewareDefinition {
  const { sessions: useSessions = provider.sessions !== undefined, onRefused, onAuthenticated, ...rest } = options;
  // What validation learned, for onAuthenticated: a symbol slot on the request (a WeakMap entry per request costs the GC more).
  const PENDING = Symbol("verified");
  type WithPending = ServerContext & { [PENDING]?: { token: string; claims: Record<string, unknown> } | undefined };
  const pending = {
    set: (ctx: ServerContext, value: { token: string; claims: Record<string, unknown> }) => {
      (ctx as WithPending)[PENDING] = value;
    },
    get: (ctx: ServerContext) => (ctx as WithPending)[PENDING],
    delete: (ctx: ServerContext) => {
      (ctx as WithPending)[PENDING] = undefined;
    },
  };
  return createAuthMiddleware({
    name: "provider-auth",
    ...rest,
    type: "bearer",
    // The identity provider did not answer within the budget: an outage, not a bad token (503, retryable).
    timeoutError: () => {
      provider.availability.report(false, undefined);
      return new AuthProviderUnavailableError(provider.type, { host: provider.availability.host });
    },
    validate: (token, ctx) => {
      // A token verified moments ago answers synchronously (no await, no timer): the hot path.
      const cached = provider.authenticateCached(token);
      if (cached?.valid) {
        pending.set(ctx, { token, claims: cached.claims });
        return cached.user;
      }
      return provider.authenticateToken(token).then((result) => {
        // A refusal carries its own 401 (TOKEN_EXPIRED, AUTH_INVALID with the reason); a provider fault is a plain refusal.
        if (!result.valid) throw result.error;
        pending.set(ctx, { token, claims: result.claims });
        return result.user;
      });
    },
    onRefused: (refusal, ctx) => {
      const error = AuthProviderError.isInstance(refusal.error)
        ? refusal.error
        : { code: (refusal.error as { code?: string }).code ?? "AUTH_INVALID", message: refusal.error.message };
      const reason =
        refusal.reason === "invalid"
          ? String(((refusal.error as AuthProviderError).details as { reason?: string } | undefined)?.reason ?? "invalid")
          : refusal.reason;
      provider.reportUnauthorized(error, reason, ctx);
      onRefused?.(refusal, ctx);
    },
    onAuthenticated: (user, ctx) => {
      const verified = pending.get(ctx);
      pending.delete(ctx);
      updateAuthContext(ctx, { provider: provider.type, ...(verified ? { claims: verified.claims } : {}) });
      const sessions = useSessions ? provider.sessions : undefined;
      if (!sessions || !verified) return onAuthenticated?.(user, ctx);
      const binding = sessionBinding(verified.token, verified.claims);
      const attach = (session: AuthSession) => {
        updateAuthContext(ctx, { session: { id: session.id, expiresAt: session.expiresAt, createdAt: session.createdAt } });
        return onAuthenticated?.(user, ctx);
      };
      const known = sessions.resolveCached(user, binding);
      if (known) return attach(known);
      return sessions.resolve(user, binding).then(attach, (error: unknown) => {
        if (AuthProviderError.isInstance(error) && error.statusCode === 401) {
          ctx.user = undefined;
          ctx.setHeader("www-authenticate", `Bearer realm="${rest.realm ?? "conduit"}", error="invalid_token"`);
          provider.reportUnauthorized(error, "session", ctx, user.id);
          throw error;
        }
        if (ServerAdapterError.isInstance(error)) throw error;
        // The session store failed in a way it did not name: still a retryable 503, never a bare 500.
        throw new StoreUnavailableError("sessions", { cause: error });
      });
    },
  });
}
