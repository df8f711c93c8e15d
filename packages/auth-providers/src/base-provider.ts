import { EventEmitter } from "node:events";
import { parseAuthorization } from "@conduit-ai/auth";
import { type Logger, ServerAdapterError, type ServerContext, StoreUnavailableError, createConsoleLogger } from "@conduit-ai/server-core";
import { AuthProviderError, MissingTokenError, ProviderAPIError, SessionNotFoundError } from "./errors/auth-errors.js";
import { ProviderAvailability } from "./health/provider-availability.js";
import type { ProviderOptions, VerifiedToken } from "./provider-options.js";
import { RbacPolicy } from "./rbac/rbac-policy.js";
import { sessionBinding } from "./sessions/session-binding.js";
import { SessionManager } from "./sessions/session-manager.js";
import { headerFromTokenSource } from "./tokens/token-source-header.js";

export { sessionBinding };
export type { ProviderOptions, VerifiedToken };
import type {
  AuthProvider,
  AuthSession,
  AuthenticatedRequest,
  AuthenticatedUser,
  AuthorizationRequirement,
  CreateSessionOptions,
  ProviderHealth,
  TokenSource,
  TokenValidationResult,
  UnauthorizedEvent,
} from "./types.js";

/**
 * Everything the provider contract requires, built on one `verifyToken` per provider type
 * (whose user gets its effective roles and permissions from the RBAC policy):
 * token extraction (`Authorization: Bearer`, case-insensitive header lookup), role and
 * permission checks through an `RbacPolicy`, sessions through a `SessionManager`, the
 * request flow (`authenticateRequest`), health checks and the `auth:unauthorized` event,
 * emitted on every refusal.
 *
 * @example
 * class ApiTokenProvider extends BaseAuthProvider {
 *   constructor() { super("api-token"); }
 *   protected async verifyToken(token: string) {
 *     const user = await lookup(token);
 *     if (!user) throw new InvalidTokenError(this.type);
 *     return { user, claims: {} };
 *   }
 * }
 */
export abstract class BaseAuthProvider extends EventEmitter implements AuthProvider {
  readonly sessions: SessionManager | undefined;
  readonly rbac: RbacPolicy;
  /** Whether the identity provider answers, from the requests this provider makes (see `ProviderAvailability`). */
  readonly availability: ProviderAvailability;
  /** Where the provider's operational lines go (`ProviderOptions.logger`). */
  protected readonly logger: Logger;
  // The optional user operations: present on vendor types configured with admin credentials
  // (see the `user-management` capability); declared here so callers can reach them typed.
  declare getUser?: AuthProvider["getUser"];
  declare getUserByEmail?: AuthProvider["getUserByEmail"];
  declare updateUserMetadata?: AuthProvider["updateUserMetadata"];
  declare updateUserRoles?: AuthProvider["updateUserRoles"];
  declare updateUserPermissions?: AuthProvider["updateUserPermissions"];
  /** Effective users per mapped user object (a cached token maps to the same object). */
  readonly #effective = new WeakMap<AuthenticatedUser, AuthenticatedUser>();

  constructor(
    readonly type: string,
    options: ProviderOptions = {},
  ) {
    super();
    this.logger = options.logger ?? createConsoleLogger("warn");
    this.availability = new ProviderAvailability(type, this.logger);
    this.rbac = options.rbac instanceof RbacPolicy ? options.rbac : new RbacPolicy(options.rbac, type);
    this.sessions =
      options.sessions === false
        ? undefined
        : options.sessions instanceof SessionManager
          ? options.sessions
          : new SessionManager({ ...options.sessions, provider: type });
  }

  /** Checks the token; throws an `AuthProviderError` (401 for a refused token). */
  protected abstract verifyToken(token: string): Promise<VerifiedToken>;

  /** Reaches the identity provider (key set, discovery); the default has nothing to reach. */
  protected async probe(): Promise<string | undefined> {
    return undefined;
  }

  async authenticateToken(token: string): Promise<TokenValidationResult> {
    try {
      return this.validResult(await this.verifyToken(token));
    } catch (error) {
      return {
        valid: false,
        error: AuthProviderError.isInstance(error) ? error : new ProviderAPIError(this.type, "Token validation failed", { cause: error }),
      };
    }
  }

  /** The result for a verified token, with the user's effective roles and permissions (computed once per mapped user). */
  protected validResult(verified: VerifiedToken): TokenValidationResult {
    let user = this.#effective.get(verified.user);
    if (!user) {
      user = this.rbac.applyTo(verified.user);
      this.#effective.set(verified.user, user);
    }
    return { valid: true, ...verified, user };
  }

  /**
   * The result for a token already verified and still cached, synchronously; undefined when
   * the provider must check it (`authenticateToken`). The HTTP middleware tries this first.
   */
  authenticateCached(_token: string): TokenValidationResult | undefined {
    return undefined;
  }

  extractToken(source: TokenSource): string | null {
    const header = headerFromTokenSource(source, "authorization");
    if (header === undefined) return null;
    const parsed = parseAuthorization(header, "Bearer");
    return parsed.kind === "token" ? parsed.token : null;
  }

  /** Emits `auth:unauthorized` (never with the credential). */
  reportUnauthorized(error: { code: string; message: string }, reason: string, ctx?: ServerContext, userId?: string): void {
    const event: UnauthorizedEvent = { provider: this.type, reason, code: error.code, message: error.message, timestamp: Date.now() };
    if (ctx) Object.assign(event, { path: ctx.path, method: ctx.method, requestId: ctx.requestId });
    if (userId !== undefined) event.userId = userId;
    this.emit("auth:unauthorized", event);
  }

  async authorizeUser(user: AuthenticatedUser, requirement: AuthorizationRequirement, ctx?: ServerContext): Promise<boolean> {
    const decision = await this.rbac.decide(user, requirement, ctx);
    if (!decision.allowed)
      this.reportUnauthorized({ code: "FORBIDDEN", message: "Insufficient permissions" }, decision.refusedBy, ctx, user.id);
    return decision.allowed;
  }

  authorizeRoles(user: AuthenticatedUser, roles: string[]): boolean {
    return this.rbac.hasAnyRole(user, roles);
  }

  authorizePermissions(user: AuthenticatedUser, permissions: string[]): boolean {
    return this.rbac.hasAllPermissions(user, permissions);
  }

  #sessionManager(): SessionManager {
    if (!this.sessions) throw new SessionNotFoundError(this.type, "Sessions are turned off for this provider");
    return this.sessions;
  }

  createSession(user: AuthenticatedUser, options?: CreateSessionOptions): Promise<AuthSession> {
    return this.#sessionManager().create(user, options);
  }

  async getSession(sessionId: string): Promise<AuthSession | undefined> {
    return this.sessions?.get(sessionId);
  }

  refreshSession(sessionId: string): Promise<AuthSession> {
    return this.#sessionManager().refresh(sessionId);
  }

  async destroySession(sessionId: string): Promise<boolean> {
    return (await this.sessions?.destroy(sessionId)) ?? false;
  }

  async getUserSessions(userId: string): Promise<AuthSession[]> {
    return (await this.sessions?.getUserSessions(userId)) ?? [];
  }

  async destroyAllUserSessions(userId: string): Promise<number> {
    return (await this.sessions?.destroyAllUserSessions(userId)) ?? 0;
  }

  /**
   * The request flow — the one the HTTP middleware runs (`createProviderAuthMiddleware`, which
   * reads the token with the wider HTTP rule first: header, cookie, query): extract the bearer
   * token, validate it, then pick the session. A session is picked by the credential's binding —
   * the identity provider's own session id (`sid` claim) when the token names one, else the
   * token's SHA-256 digest: a valid, unexpired session of the user with that binding is reused
   * (its expiry slides when it nears its end), otherwise a new one is created for the user. The
   * spec says "reuse a valid session of the user"; binding to the credential is stricter on
   * purpose: a signed-out session (`DELETE /api/auth/sessions/:id`) stays refused for that token
   * (401 `SESSION_EXPIRED`) instead of the token quietly opening another one, while the user's
   * other devices keep theirs. Every refusal emits `auth:unauthorized` and throws the auth error
   * (401); an unreachable identity provider throws 503 `AUTH_PROVIDER_UNAVAILABLE`, a failing
   * session store 503 `STORE_UNAVAILABLE`.
   *
   * @example
   * const { user, session } = await provider.authenticateRequest(ctx);
   */
  async authenticateRequest(source: TokenSource, ctx?: ServerContext): Promise<AuthenticatedRequest> {
    const token = this.extractToken(source);
    if (!token) {
      const error = new MissingTokenError(this.type);
      this.reportUnauthorized(error, "missing", ctx);
      throw error;
    }
    return this.completeRequest(token, ctx);
  }

  /**
   * `authenticateRequest` for a token a request has already been searched for, synchronously,
   * when everything is cached: the token verified moments ago, its session known. Undefined means
   * "run `completeRequest`". The hot path of the HTTP middleware: no await, no timer.
   */
  completeCached(token: string, options: { sessions?: boolean } = {}): AuthenticatedRequest | undefined {
    const result = this.authenticateCached(token);
    if (!result?.valid) return undefined;
    const authenticated: AuthenticatedRequest = { user: result.user, token, claims: result.claims };
    const sessions = options.sessions === false ? undefined : this.sessions;
    if (!sessions) return authenticated;
    const session = sessions.resolveCached(result.user, sessionBinding(token, result.claims));
    if (!session) return undefined;
    authenticated.session = session;
    return authenticated;
  }

  /** `authenticateRequest` after extraction (the HTTP middleware extracts with its own sources). */
  async completeRequest(
    token: string,
    ctx?: ServerContext,
    options: {
      sessions?: boolean /** Emit `auth:unauthorized` for refusals (default true; optional auth refuses nobody). */;
      report?: boolean;
    } = {},
  ): Promise<AuthenticatedRequest> {
    const result = await this.authenticateToken(token);
    if (!result.valid) {
      // An outage is not a refusal of the caller: no `auth:unauthorized` for it.
      if (result.error.statusCode !== 503 && options.report !== false) {
        const reason = String((result.error.details as { reason?: string } | undefined)?.reason ?? "invalid");
        this.reportUnauthorized(result.error, reason, ctx);
      }
      throw result.error;
    }
    const authenticated: AuthenticatedRequest = { user: result.user, token, claims: result.claims };
    const sessions = options.sessions === false ? undefined : this.sessions;
    if (sessions) {
      try {
        authenticated.session = await sessions.resolve(result.user, sessionBinding(token, result.claims));
      } catch (error) {
        if (AuthProviderError.isInstance(error) && error.statusCode === 401) {
          if (options.report !== false) this.reportUnauthorized(error, "session", ctx, result.user.id);
          throw error;
        }
        if (ServerAdapterError.isInstance(error) && error.statusCode === 503) throw error;
        // The session store failed in a way it did not name: still a retryable 503, never a bare 500 or a refusal.
        throw new StoreUnavailableError("sessions", { cause: error });
      }
    }
    return authenticated;
  }

  async healthCheck(): Promise<ProviderHealth> {
    const started = performance.now();
    const checkedAt = Date.now();
    try {
      const message = await this.probe();
      if (this.sessions?.store.ping) await this.sessions.store.ping();
      return {
        status: "ok",
        provider: this.type,
        latencyMs: Math.round(performance.now() - started),
        checkedAt,
        ...(message ? { message } : {}),
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { status: "down", provider: this.type, latencyMs: Math.round(performance.now() - started), checkedAt, message };
    }
  }

  async initialize(): Promise<void> {}

  async cleanup(): Promise<void> {
    await this.sessions?.close();
  }
}
