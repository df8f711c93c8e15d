import {
  AuthenticationError,
  InvalidAuthenticationError,
  type MiddlewareDefinition,
  ServerAdapterError,
  type ServerContext,
} from "@conduit-ai/server-core";
import { requestLogger } from "@conduit-ai/server-core/middleware";
import { type Deadline, DeadlineQueue } from "@conduit-ai/server-core/internal";
import { runWithAuthContext, setAuthContext } from "./auth-context.js";
import type { AuthContext, AuthMiddlewareOptions, AuthRefusal, AuthType, AuthenticatedUser } from "./auth-types.js";
import { toAuthenticatedUser } from "./authenticated-user.js";
import { devPlaygroundEnabled, isDevPlaygroundRequest, warnDevPlayground } from "./dev-playground.js";
import { extractCredential, extractFromRequest } from "./extract-token.js";
import { ValidatorTimeoutError } from "./validator-timeout-error.js";

const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";

/** Runs after the default stack (0–5) and before role/permission checks (15). */
export const AUTH_MIDDLEWARE_ORDER = 10;
export const DEFAULT_AUTH_ERROR_MESSAGE = "Authentication required";
export const DEFAULT_INVALID_MESSAGE = "Invalid authentication credentials";

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_TOKEN_LENGTH = 8192;

function challenge(type: AuthType, realm: string, headerName: string, invalid: boolean): string {
  const quotedRealm = `realm="${realm.replace(/["\\]/g, "")}"`;
  switch (type) {
    case "bearer":
      return invalid ? `Bearer ${quotedRealm}, error="invalid_token"` : `Bearer ${quotedRealm}`;
    case "basic":
      return `Basic ${quotedRealm}, charset="UTF-8"`;
    case "api-key":
      return `ApiKey ${quotedRealm}, header="${headerName}"`;
    default:
      return `Custom ${quotedRealm}`;
  }
}

/**
 * The general authentication middleware: finds the credential (header, cookie, query,
 * custom extractor), validates it and puts the user on `ctx.user` with `roles` and
 * `permissions` always set. Missing → 401 `AUTH_REQUIRED` with `errorMessage`;
 * refused, malformed, throwing or slow validator → 401 `AUTH_INVALID` (fail closed,
 * never 500, never pass-through); a validator that throws a 503 error (its identity provider
 * is down) → that 503, still without a user. Both carry a `WWW-Authenticate` challenge. Public
 * `skipPaths` pass without a user, and so does `x-dev-playground: true` from loopback — but
 * only in a process started with `NODE_ENV=development` (or `devPlayground: true`), with a
 * startup warning.
 *
 * @example
 * server.registerMiddleware(
 *   createAuthMiddleware({
 *     type: "bearer",
 *     validate: async (token) => (await sessions.find(token)) ?? null,
 *     skipPaths: ["/api/public/*"],
 *   }),
 * );
 */
export function createAuthMiddleware(options: AuthMiddlewareOptions): MiddlewareDefinition {
  const {
    type,
    validate,
    errorMessage = DEFAULT_AUTH_ERROR_MESSAGE,
    invalidMessage = DEFAULT_INVALID_MESSAGE,
    skipDevPlayground = true,
    optional = false,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxTokenLength = DEFAULT_MAX_TOKEN_LENGTH,
    realm = "conduit",
    ambientContext = false,
  } = options;
  if (typeof validate !== "function") throw new TypeError("createAuthMiddleware: `validate` must be a function");
  // Decided once, at startup: an environment variable flipped later never opens the bypass.
  const devPlayground = skipDevPlayground && devPlaygroundEnabled(options.devPlayground);
  if (devPlayground) warnDevPlayground();
  const headerName = (options.headerName ?? (type === "api-key" ? "x-api-key" : "authorization")).toLowerCase();

  const refuse = (ctx: ServerContext, reason: AuthRefusal["reason"], specific?: ServerAdapterError): never => {
    const invalid = reason !== "missing";
    // The audit line: who was refused, by the same client address as rate limits and access logs.
    requestLogger(ctx)?.info(
      { clientAddress: ctx.clientAddress, scheme: type, reason: invalid ? "invalid" : "missing" },
      "authentication refused",
    );
    ctx.setHeader("www-authenticate", challenge(type, realm, headerName, invalid));
    const error = specific ?? (invalid ? new InvalidAuthenticationError(invalidMessage) : new AuthenticationError(errorMessage));
    options.onRefused?.({ reason, error }, ctx);
    throw error;
  };

  // One timer for all pending validations (they share `timeoutMs`, so deadlines come in start
  // order), instead of a Node timer per request: this runs on every authenticated request.
  const deadlines = new DeadlineQueue(timeoutMs);
  const within = <T>(work: PromiseLike<T>) =>
    new Promise<T>((resolve, reject) => {
      let settled = false;
      const deadline: Deadline = deadlines.add(performance.now(), () => {
        settled = true;
        reject(new ValidatorTimeoutError(timeoutMs));
      });
      work.then(
        (value) => {
          deadlines.remove(deadline);
          if (!settled) resolve(value);
        },
        (error: unknown) => {
          deadlines.remove(deadline);
          if (!settled) reject(error);
        },
      );
    });

  /**
   * A user, or the refusal: undefined (generic 401) or a validator's own 401 error (an
   * expired token says so). Any other error or a timeout is a generic refusal too. A validator
   * that answers synchronously (a cache hit) cannot outlive its budget and skips the timer.
   */
  const refusalOf = (error: unknown, ctx: ServerContext): ServerAdapterError | undefined => {
    options.onValidatorError?.(error, ctx);
    const answer = error instanceof ValidatorTimeoutError && options.timeoutError ? options.timeoutError(ctx) : error;
    // A 503 (the identity provider or a store is down) is answered as such: still closed, but retryable.
    return ServerAdapterError.isInstance(answer) && (answer.statusCode === 401 || answer.statusCode === 503) ? answer : undefined;
  };
  const resolveUser = (
    token: string,
    ctx: ServerContext,
  ): AuthenticatedUser | ServerAdapterError | undefined | Promise<AuthenticatedUser | ServerAdapterError | undefined> => {
    let result: ReturnType<typeof validate>;
    try {
      result = validate(token, ctx);
    } catch (error) {
      return refusalOf(error, ctx);
    }
    if (!isThenable(result)) return toAuthenticatedUser(result);
    return within(result).then(toAuthenticatedUser, (error: unknown) => refusalOf(error, ctx));
  };

  // Built once: the handler runs per request.
  const extractionOptions = {
    type,
    headerName,
    cookieName: options.cookieName,
    queryParam: options.queryParam,
    extractToken: options.extractToken,
  };

  const definition: MiddlewareDefinition = {
    name: options.name ?? "auth",
    order: options.order ?? AUTH_MIDDLEWARE_ORDER,
    handler: async (ctx, next) => {
      if (devPlayground && isDevPlaygroundRequest(ctx)) return next();
      // Preflights carry no credentials; the core answers them (allowed methods only) unless a route claims OPTIONS.
      if (ctx.method === "OPTIONS" && ctx.route === undefined) return next();

      let extraction: Awaited<ReturnType<typeof extractCredential>>;
      // Without a custom extractor the search is synchronous: no promise, no extra microtask turn.
      if (extractionOptions.extractToken === undefined) extraction = extractFromRequest(ctx, extractionOptions);
      else {
        try {
          extraction = await extractCredential(ctx, extractionOptions);
        } catch (error) {
          // A throwing custom extractor is a refusal, not a server error.
          options.onValidatorError?.(error, ctx);
          extraction = { kind: "malformed" };
        }
      }
      if (extraction.kind === "none") return optional ? next() : refuse(ctx, "missing");
      if (extraction.kind === "malformed" || extraction.token.length > maxTokenLength) {
        return optional ? next() : refuse(ctx, "malformed");
      }

      const resolved = resolveUser(extraction.token, ctx);
      const user = isThenable(resolved) ? await resolved : resolved;
      if (user === undefined || ServerAdapterError.isInstance(user)) {
        // Unavailable, not refused: no user, no challenge, and not even `optional` turns it into an anonymous request.
        if (user?.statusCode === 503) throw user;
        return optional ? next() : refuse(ctx, "invalid", user);
      }

      const record: AuthContext = { user, type, token: extraction.token, claims: user.metadata ?? {} };
      setAuthContext(ctx, record);
      const hook = options.onAuthenticated?.(user, ctx);
      if (isThenable(hook)) await hook;
      // Errors from later middleware or the handler are theirs: they propagate untouched.
      // With `ambientContext` the rest of the request runs with the record as its ambient auth context.
      return ambientContext ? runWithAuthContext(record, next) : next();
    },
  };
  if (options.skipPaths && options.skipPaths.length > 0) definition.excludePaths = [...options.skipPaths];
  return definition;
}
