import { type AuthMiddlewareOptions, createAuthMiddleware, updateAuthContext } from "@conduit-ai/auth";
import type { MiddlewareDefinition, ServerContext } from "@conduit-ai/server-core";
import type { BaseAuthProvider } from "../base-provider.js";
import { AuthProviderError, AuthProviderUnavailableError } from "../errors/auth-errors.js";
import type { AuthenticatedRequest } from "../types.js";

export interface ProviderAuthMiddlewareOptions extends Omit<AuthMiddlewareOptions, "type" | "validate"> {
  /** Reuse or create a session per request (needs the provider's sessions). Default: when the provider has sessions. */
  sessions?: boolean;
}

/**
 * The spec's request authentication flow on a provider — the provider's own
 * `authenticateRequest` (`completeRequest` after extraction), so HTTP and direct callers share
 * one flow: public paths pass; the token is read from the `Authorization: Bearer` header, then
 * `cookieName`, `queryParam`, `extractToken`; the provider validates it (refused, expired, wrong issuer or audience, unsigned → 401,
 * never 500; the identity provider unreachable, answering 5xx or slower than `timeoutMs` → 503
 * `AUTH_PROVIDER_UNAVAILABLE` with `Retry-After`, still without a user; tokens verified before
 * the outage keep working from the cache); the user, token, claims and
 * session become the request's auth context (also ambient for `getCurrentUser()` with
 * `ambientContext: true`); then `onAuthenticated`. Every refusal emits `auth:unauthorized`
 * on the provider. The session is reused or created as `authenticateRequest` says (bound to the
 * credential; a signed-out one stays refused). A session store outage answers 503 `STORE_UNAVAILABLE`.
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
  // Optional auth lets refused callers through: nobody is refused, so nothing is reported.
  const flow = { sessions: useSessions, report: rest.optional !== true };
  // What the flow resolved, for onAuthenticated: a symbol slot on the request (a WeakMap entry per request costs the GC more).
  const RESOLVED = Symbol("authenticated");
  type WithResolved = ServerContext & { [RESOLVED]?: AuthenticatedRequest | undefined };
  return createAuthMiddleware({
    name: "provider-auth",
    ...rest,
    type: "bearer",
    // The identity provider did not answer within the budget: an outage, not a bad token (503, retryable).
    timeoutError: () => {
      provider.availability.report(false, undefined);
      return new AuthProviderUnavailableError(provider.type, { host: provider.availability.host });
    },
    // The provider's request flow (`authenticateRequest` after extraction): token, then session.
    validate: (token, ctx) => {
      // Verified moments ago and its session known: answered synchronously (no await, no timer), the hot path.
      const cached = provider.completeCached(token, flow);
      if (cached) {
        (ctx as WithResolved)[RESOLVED] = cached;
        return cached.user;
      }
      return provider.completeRequest(token, ctx, flow).then((authenticated) => {
        (ctx as WithResolved)[RESOLVED] = authenticated;
        return authenticated.user;
      });
    },
    onRefused: (refusal, ctx) => {
      // Refusals of the flow itself were reported by it; missing and malformed credentials are reported here.
      if (refusal.reason !== "invalid") {
        const error = AuthProviderError.isInstance(refusal.error)
          ? refusal.error
          : { code: (refusal.error as { code?: string }).code ?? "AUTH_INVALID", message: refusal.error.message };
        provider.reportUnauthorized(error, refusal.reason, ctx);
      }
      onRefused?.(refusal, ctx);
    },
    onAuthenticated: (user, ctx) => {
      const authenticated = (ctx as WithResolved)[RESOLVED];
      (ctx as WithResolved)[RESOLVED] = undefined;
      const session = authenticated?.session;
      updateAuthContext(ctx, {
        provider: provider.type,
        ...(authenticated ? { claims: authenticated.claims } : {}),
        ...(session ? { session: { id: session.id, expiresAt: session.expiresAt, createdAt: session.createdAt } } : {}),
      });
      return onAuthenticated?.(user, ctx);
    },
  });
}
