import { ErrorCategory, ErrorSeverity, ServerAdapterError, type ServerErrorOptions } from "@conduit-ai/server-core";

const authErrorMarker = Symbol.for("@conduit-ai/auth-providers/AuthProviderError");

type Options = Omit<ServerErrorOptions, "statusCode" | "category" | "code">;

/** Wire codes of the auth error classes (docs/spec.md leaves them open; decided in the README). */
export const AuthErrorCode = {
  AUTHENTICATION_FAILED: "AUTH_INVALID",
  MISSING_TOKEN: "AUTH_REQUIRED",
  INVALID_TOKEN: "AUTH_INVALID",
  TOKEN_EXPIRED: "TOKEN_EXPIRED",
  INSUFFICIENT_PERMISSIONS: "FORBIDDEN",
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  SESSION_EXPIRED: "SESSION_EXPIRED",
  USER_NOT_FOUND: "USER_NOT_FOUND",
  PROVIDER_INITIALIZATION_FAILED: "AUTH_PROVIDER_INIT_FAILED",
  INVALID_CONFIGURATION: "INVALID_CONFIG",
  PROVIDER_API_ERROR: "AUTH_PROVIDER_ERROR",
  PROVIDER_UNAVAILABLE: "AUTH_PROVIDER_UNAVAILABLE",
  RATE_LIMITED: "AUTH_RATE_LIMITED",
} as const;

interface Preset {
  code: string;
  statusCode: number;
  category: ErrorCategory;
  severity: ErrorSeverity;
  retryable?: boolean;
}

/**
 * Base of the auth provider errors: a server error (so the core turns it into the standard
 * envelope with its status) that also names the provider type that raised it.
 *
 * @example
 * try { await provider.authenticateToken(token); } catch (error) {
 *   if (AuthProviderError.isInstance(error)) console.warn(error.provider, error.code);
 * }
 */
export class AuthProviderError extends ServerAdapterError {
  /** The provider type (`jwt`, `keycloak`, …) that raised the error. */
  readonly provider: string;

  constructor(message: string, provider: string, preset: Preset, options: Options = {}) {
    super(message, { ...options, ...preset });
    this.provider = provider;
    Object.defineProperty(this, authErrorMarker, { value: true });
  }

  /** True for auth provider errors from any copy of this package. */
  static override isInstance(value: unknown): value is AuthProviderError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[authErrorMarker] === true;
  }
}

const { AUTHENTICATION, AUTHORIZATION, CONFIG, EXTERNAL, RATE_LIMIT, VALIDATION } = ErrorCategory;
const { LOW, MEDIUM, HIGH, CRITICAL } = ErrorSeverity;

/** A credential was presented and refused for a reason other than the ones below. */
export class AuthenticationFailedError extends AuthProviderError {
  constructor(provider: string, message = "Authentication failed", options: Options = {}) {
    super(
      message,
      provider,
      { code: AuthErrorCode.AUTHENTICATION_FAILED, statusCode: 401, category: AUTHENTICATION, severity: MEDIUM },
      options,
    );
  }
}

/** No credential on a request that needs one. */
export class MissingTokenError extends AuthProviderError {
  constructor(provider: string, message = "Authentication required", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.MISSING_TOKEN, statusCode: 401, category: AUTHENTICATION, severity: LOW }, options);
  }
}

/** A malformed, unsigned, wrongly signed, wrong-issuer or wrong-audience token. */
export class InvalidTokenError extends AuthProviderError {
  constructor(provider: string, message = "Invalid token", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.INVALID_TOKEN, statusCode: 401, category: AUTHENTICATION, severity: MEDIUM }, options);
  }
}

/** The token's `exp` has passed (beyond the clock tolerance): the client should refresh it. */
export class TokenExpiredError extends AuthProviderError {
  constructor(provider: string, message = "Token expired", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.TOKEN_EXPIRED, statusCode: 401, category: AUTHENTICATION, severity: LOW }, options);
  }
}

/** Authenticated, but the roles or permissions do not allow this. */
export class InsufficientPermissionsError extends AuthProviderError {
  constructor(provider: string, message = "Insufficient permissions", options: Options = {}) {
    super(
      message,
      provider,
      { code: AuthErrorCode.INSUFFICIENT_PERMISSIONS, statusCode: 403, category: AUTHORIZATION, severity: MEDIUM },
      options,
    );
  }
}

/** No such session, or not one of the caller's (the two are indistinguishable on purpose). */
export class SessionNotFoundError extends AuthProviderError {
  constructor(provider: string, message = "Session not found", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.SESSION_NOT_FOUND, statusCode: 404, category: VALIDATION, severity: LOW }, options);
  }
}

export class SessionExpiredError extends AuthProviderError {
  constructor(provider: string, message = "Session expired", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.SESSION_EXPIRED, statusCode: 401, category: AUTHENTICATION, severity: LOW }, options);
  }
}

export class UserNotFoundError extends AuthProviderError {
  constructor(provider: string, message = "User not found", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.USER_NOT_FOUND, statusCode: 404, category: VALIDATION, severity: LOW }, options);
  }
}

/** The provider could not start (discovery failed, key unreadable). */
export class ProviderInitializationError extends AuthProviderError {
  constructor(provider: string, message = "Auth provider failed to initialize", options: Options = {}) {
    super(
      message,
      provider,
      { code: AuthErrorCode.PROVIDER_INITIALIZATION_FAILED, statusCode: 500, category: CONFIG, severity: CRITICAL },
      options,
    );
  }
}

/** A provider's settings are wrong; `details.issues` names each bad key (never a secret's value). */
export class InvalidConfigurationError extends AuthProviderError {
  constructor(provider: string, message = "Invalid auth provider configuration", options: Options = {}) {
    super(message, provider, { code: AuthErrorCode.INVALID_CONFIGURATION, statusCode: 400, category: CONFIG, severity: HIGH }, options);
  }
}

/** The identity provider's API (JWKS, introspection, userinfo) failed or answered nonsense. */
export class ProviderAPIError extends AuthProviderError {
  constructor(provider: string, message = "Identity provider request failed", options: Options = {}) {
    super(
      message,
      provider,
      { code: AuthErrorCode.PROVIDER_API_ERROR, statusCode: 502, category: EXTERNAL, severity: HIGH, retryable: true },
      options,
    );
  }
}

/** What `Retry-After` says while the identity provider cannot be reached: about one key set or introspection timeout. */
export const AUTH_PROVIDER_RETRY_AFTER_MS = 5_000;

/**
 * The identity provider cannot be reached (connection refused, DNS, a 5xx, or no answer within
 * the validation timeout): 503 `AUTH_PROVIDER_UNAVAILABLE`, retryable, with `Retry-After`. Still
 * closed — no user — but a client can tell "try again" from "your token is bad". The message
 * never names the host (it stays server-side, on `host`, for the outage log line).
 *
 * @example
 * throw new AuthProviderUnavailableError("jwt", { host: "id.example.com", cause: error });
 */
export class AuthProviderUnavailableError extends AuthProviderError {
  /** Host of the identity provider endpoint that failed, when known. */
  readonly host: string | undefined;

  constructor(
    provider: string,
    options: Options & { host?: string | undefined } = {},
    message = "The identity provider cannot be reached; retry shortly",
  ) {
    const { host, ...rest } = options;
    super(
      message,
      provider,
      { code: AuthErrorCode.PROVIDER_UNAVAILABLE, statusCode: 503, category: EXTERNAL, severity: HIGH, retryable: true },
      { retryAfterMs: AUTH_PROVIDER_RETRY_AFTER_MS, ...rest },
    );
    this.host = host;
  }
}

/** True for `AUTH_PROVIDER_UNAVAILABLE` from any copy of this package. */
export function isProviderUnavailable(error: unknown): error is AuthProviderUnavailableError {
  return AuthProviderError.isInstance(error) && error.code === AuthErrorCode.PROVIDER_UNAVAILABLE;
}

/** The identity provider rate-limited us. */
export class AuthRateLimitError extends AuthProviderError {
  constructor(provider: string, message = "Identity provider rate limit reached", options: Options = {}) {
    super(
      message,
      provider,
      { code: AuthErrorCode.RATE_LIMITED, statusCode: 429, category: RATE_LIMIT, severity: LOW, retryable: true },
      options,
    );
  }
}

/** True for the errors that mean "this credential is refused" (401), as opposed to a provider fault. */
export function isTokenRefusal(error: unknown): error is AuthProviderError {
  return AuthProviderError.isInstance(error) && error.statusCode === 401;
}
