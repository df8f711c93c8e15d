import type { AuthenticatedUser } from "@conduit-ai/auth";
import type { IncomingHeaders, ServerContext } from "@conduit-ai/server-core";
import type { AuthProviderError } from "./errors/auth-errors.js";

export type { AuthenticatedUser };

/** What a provider type can do; the registry lists types by capability. */
export type AuthCapability =
  | "jwt-validation"
  | "jwks"
  | "token-introspection"
  | "userinfo"
  | "oidc-discovery"
  | "session-management"
  | "sso"
  | "role-mapping"
  | "user-management"
  | "custom-validation";

/** Describes a provider type (what the registry and `conduit` tell users about it). */
export interface ProviderMetadata {
  displayName: string;
  description: string;
  /** The vendor's documentation of the tokens this type checks. */
  documentationUrl?: string;
}

/** Outcome of `authenticateToken`: never throws for a refused token, says why instead. */
export type TokenValidationResult =
  | {
      valid: true;
      user: AuthenticatedUser;
      claims: Record<string, unknown> /** Epoch ms when the credential stops being valid. */;
      expiresAt?: number;
    }
  | { valid: false; error: AuthProviderError };

/** A signed-in user's session, as every store keeps it (JSON-safe). */
export interface AuthSession {
  id: string;
  userId: string;
  user: AuthenticatedUser;
  /** Provider type that authenticated the user. */
  provider: string;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  lastAccessedAt: number;
  metadata?: Record<string, unknown>;
}

/** What `authenticateRequest` resolves to. */
export interface AuthenticatedRequest {
  user: AuthenticatedUser;
  /** The credential as presented. Never log it. */
  token: string;
  claims: Record<string, unknown>;
  /** Present when the provider keeps sessions. */
  session?: AuthSession;
}

/** Anything a token can be read from: a Conduit context, a Node request's headers, a plain header map. */
export type TokenSource = Pick<ServerContext, "header"> | { headers: IncomingHeaders | Headers } | IncomingHeaders;

/** Roles and permissions a call needs (the 7-step enforcement flow, see `RbacPolicy`). */
export interface AuthorizationRequirement {
  roles?: string[];
  /** Default false: any one role suffices. */
  requireAllRoles?: boolean;
  /** All are needed. */
  permissions?: string[];
}

export interface ProviderHealth {
  status: "ok" | "degraded" | "down";
  provider: string;
  /** Milliseconds the check took. */
  latencyMs: number;
  message?: string;
  /** Epoch ms of the check (cached results keep the original time). */
  checkedAt: number;
}

/** Payload of the `auth:unauthorized` event (no credential, ever). */
export interface UnauthorizedEvent {
  provider: string;
  /** `missing`, `invalid`, `expired`, `forbidden`, … */
  reason: string;
  code: string;
  message: string;
  path?: string;
  method?: string;
  requestId?: string;
  userId?: string;
  timestamp: number;
}

/** Options of `createSession`. */
export interface CreateSessionOptions {
  /**
   * Ties the session to a credential (the token's `sid` claim, else its digest), so the same
   * credential finds the same session again; without it the session id is random.
   */
  binding?: string;
  metadata?: Record<string, unknown>;
}

/**
 * The provider contract (docs/spec.md "Provider interface"). `BaseAuthProvider` implements every
 * required operation from one `verifyToken`; the optional ones exist where the vendor has them.
 */
export interface AuthProvider {
  /** Canonical type name (`jwt`, `keycloak`, …). */
  readonly type: string;
  authenticateToken(token: string): Promise<TokenValidationResult>;
  extractToken(source: TokenSource): string | null;
  authorizeUser(user: AuthenticatedUser, requirement: AuthorizationRequirement, ctx?: ServerContext): Promise<boolean>;
  /** Any of `roles` (after the hierarchy). */
  authorizeRoles(user: AuthenticatedUser, roles: string[]): boolean;
  /** All of `permissions` (with role permissions and wildcards). */
  authorizePermissions(user: AuthenticatedUser, permissions: string[]): boolean;
  createSession(user: AuthenticatedUser, options?: CreateSessionOptions): Promise<AuthSession>;
  getSession(sessionId: string): Promise<AuthSession | undefined>;
  refreshSession(sessionId: string): Promise<AuthSession>;
  destroySession(sessionId: string): Promise<boolean>;
  getUserSessions(userId: string): Promise<AuthSession[]>;
  destroyAllUserSessions(userId: string): Promise<number>;
  authenticateRequest(source: TokenSource, ctx?: ServerContext): Promise<AuthenticatedRequest>;
  healthCheck(): Promise<ProviderHealth>;
  on(event: "auth:unauthorized", listener: (event: UnauthorizedEvent) => void): this;
  off(event: "auth:unauthorized", listener: (event: UnauthorizedEvent) => void): this;
  // Optional operations (docs/spec.md): present where the identity provider offers them.
  refreshToken?(refreshToken: string): Promise<{ accessToken: string; refreshToken?: string; expiresIn?: number }>;
  revokeToken?(token: string): Promise<void>;
  getUser?(userId: string): Promise<AuthenticatedUser | undefined>;
  getUserByEmail?(email: string): Promise<AuthenticatedUser | undefined>;
  updateUserMetadata?(userId: string, metadata: Record<string, unknown>): Promise<AuthenticatedUser>;
  updateUserRoles?(userId: string, roles: string[]): Promise<AuthenticatedUser>;
  updateUserPermissions?(userId: string, permissions: string[]): Promise<AuthenticatedUser>;
  initialize?(): Promise<void>;
  cleanup?(): Promise<void>;
}
