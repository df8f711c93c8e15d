import type { AuthenticatedUser, ServerContext } from "@conduit-ai/server-core";

export type { AuthenticatedUser };

/** Credential schemes the general auth middleware understands. */
export type AuthType = "bearer" | "api-key" | "basic" | "custom";

/** What a validator may return for a valid credential (docs/spec.md "Identity and auth records"). */
export interface AuthResult {
  id: string;
  email?: string;
  name?: string;
  roles?: string[];
  permissions?: string[];
  metadata?: Record<string, unknown>;
}

/** `null`, `undefined` or `false` mean "not valid": the request is refused (fail closed). */
export type AuthValidationResult = AuthResult | AuthenticatedUser | null | undefined | false;

/** Checks a credential; may be sync or async. Throwing or timing out refuses the request with 401. */
export type TokenValidator = (token: string, ctx: ServerContext) => AuthValidationResult | Promise<AuthValidationResult>;

/** Options of `createAuthMiddleware` (docs/spec.md `AuthConfig`, plus the extraction and safety knobs). */
export interface AuthMiddlewareOptions {
  type: AuthType;
  validate: TokenValidator;
  /** Header carrying the credential. Default `authorization` (bearer, basic, custom) or `x-api-key` (api-key). */
  headerName?: string;
  /** Cookie read when the header carries nothing (off unless named). */
  cookieName?: string;
  /** Query parameter read after header and cookie (off unless named: query strings end up in access logs). */
  queryParam?: string;
  /** Last resort extractor, after header, cookie and query (docs/spec.md's `custom` strategy). */
  extractToken?: (ctx: ServerContext) => string | null | undefined | Promise<string | null | undefined>;
  /** Public paths: exact, or a prefix ending in `*`; matched with and without `basePath`. */
  skipPaths?: string[];
  /** Message of the 401 sent when no credential is present. */
  errorMessage?: string;
  /** Message of the 401 sent when a credential is present but refused. */
  invalidMessage?: string;
  /**
   * Lets `x-dev-playground: true` from a loopback client (no proxy in between) through without
   * credentials — only where the dev playground is enabled (`devPlayground`). Default true;
   * false turns the bypass off whatever the environment.
   */
  skipDevPlayground?: boolean;
  /**
   * Enables the dev playground bypass explicitly. Default: only when the process runs with
   * `NODE_ENV=development`. Never under `NODE_ENV=production`. Read when the middleware is
   * built, which then logs a warning (`CONDUIT_DEV_PLAYGROUND`).
   */
  devPlayground?: boolean;
  /** Proceed without `ctx.user` instead of refusing when the credential is missing or invalid. Default false. */
  optional?: boolean;
  /** A validator still pending after this long refuses the request. Default 5000. */
  timeoutMs?: number;
  /**
   * The error a validator that outlives `timeoutMs` answers with. Default: the generic 401
   * refusal. Provider auth answers 503 `AUTH_PROVIDER_UNAVAILABLE`: a slow identity provider
   * says nothing about the token. (A validator that throws a 503 error is answered with it too.)
   */
  timeoutError?: (ctx: ServerContext) => Error;
  /** Longer credentials are refused without calling the validator. Default 8192. */
  maxTokenLength?: number;
  /** Realm of the `WWW-Authenticate` challenge. Default `conduit`. */
  realm?: string;
  /** Middleware order. Default 10: after the default stack (0–5), before authorization (15). */
  order?: number;
  /** Middleware name. Default `auth`. */
  name?: string;
  /**
   * Also make the auth record ambient (AsyncLocalStorage) for the rest of the request, so the
   * context helpers work without a `ctx` argument (`getCurrentUser()`). Default false: on
   * Node 20, AsyncLocalStorage turns on promise hooks for the whole process, which costs
   * about half the throughput of a small JSON route (see the README).
   */
  ambientContext?: boolean;
  /** Called after a successful authentication, before the handler. */
  onAuthenticated?: (user: AuthenticatedUser, ctx: ServerContext) => void | Promise<void>;
  /** Called on every refusal (missing, malformed or invalid credential), before the 401 is sent. */
  onRefused?: (refusal: AuthRefusal, ctx: ServerContext) => void;
  /**
   * Told why a validator failed (threw or timed out); the request is refused (or, for a 503
   * error from the validator, answered with it) either way.
   * Receives the error only, never the credential.
   */
  onValidatorError?: (error: unknown, ctx: ServerContext) => void;
}

/** The session a request was authenticated with (provider auth with sessions). */
export interface AuthSessionInfo {
  id: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Epoch milliseconds. */
  createdAt?: number;
}

/** The authentication record of one request, kept out of `ctx.state` so secrets never get serialized with it. */
export interface AuthContext {
  user: AuthenticatedUser;
  type: AuthType;
  /** The credential as presented. Never log it. */
  token: string;
  /** `metadata` returned by the validator, or the verified token's claims (provider auth). */
  claims: Record<string, unknown>;
  /** The provider type that checked the credential (`jwt`, `keycloak`, …), for provider auth. */
  provider?: string;
  /** The session reused or created for this request, when sessions are on. */
  session?: AuthSessionInfo;
}

/** Why a request was refused, as told to `onRefused`; the credential itself is never included. */
export interface AuthRefusal {
  /** `missing`: no credential; `malformed`: unusable or too long; `invalid`: the validator said no, threw or timed out. */
  reason: "missing" | "malformed" | "invalid";
  /** The error sent to the client (401). */
  error: Error;
}
