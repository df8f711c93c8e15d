import {
  AuthenticationError,
  InvalidAuthenticationError,
  type MiddlewareDefinition,
  type ServerContext,
} from "@conduit-ai/server-core";
import { setAuthContext } from "./auth-context.js";
import type { AuthMiddlewareOptions, AuthType, AuthenticatedUser } from "./auth-types.js";
import { toAuthenticatedUser } from "./authenticated-user.js";
import { isDevPlaygroundRequest } from "./dev-playground.js";
import { extractCredential } from "./extract-token.js";
import { withTimeout } from "./with-timeout.js";

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
 * never 500, never pass-through). Both carry a `WWW-Authenticate` challenge. Public
 * `skipPaths` and, outside production, `x-dev-playground: true` requests pass without a user.
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
  } = options;
  if (typeof validate !== "function") throw new TypeError("createAuthMiddleware: `validate` must be a function");
  const headerName = (options.headerName ?? (type === "api-key" ? "x-api-key" : "authorization")).toLowerCase();

  const refuse = (ctx: ServerContext, invalid: boolean): never => {
    ctx.setHeader("www-authenticate", challenge(type, realm, headerName, invalid));
    throw invalid ? new InvalidAuthenticationError(invalidMessage) : new AuthenticationError(errorMessage);
  };

  /** Undefined means refused; errors and timeouts are refusals too. */
  const resolveUser = async (token: string, ctx: ServerContext): Promise<AuthenticatedUser | undefined> => {
    try {
      return toAuthenticatedUser(await withTimeout(Promise.resolve().then(() => validate(token, ctx)), timeoutMs));
    } catch (error) {
      options.onValidatorError?.(error, ctx);
      return undefined;
    }
  };

  const definition: MiddlewareDefinition = {
    name: options.name ?? "auth",
    order: options.order ?? AUTH_MIDDLEWARE_ORDER,
    handler: async (ctx, next) => {
      if (skipDevPlayground && isDevPlaygroundRequest(ctx)) return next();
      // Preflights carry no credentials; the core answers them (allowed methods only) unless a route claims OPTIONS.
      if (ctx.method === "OPTIONS" && ctx.route === undefined) return next();

      let extraction: Awaited<ReturnType<typeof extractCredential>>;
      try {
        extraction = await extractCredential(ctx, { ...options, headerName });
      } catch (error) {
        // A throwing custom extractor is a refusal, not a server error.
        options.onValidatorError?.(error, ctx);
        extraction = { kind: "malformed" };
      }
      if (extraction.kind === "none") return optional ? next() : refuse(ctx, false);
      if (extraction.kind === "malformed" || extraction.token.length > maxTokenLength) {
        return optional ? next() : refuse(ctx, true);
      }

      const user = await resolveUser(extraction.token, ctx);
      if (!user) return optional ? next() : refuse(ctx, true);

      setAuthContext(ctx, { user, type, token: extraction.token, claims: user.metadata ?? {} });
      await options.onAuthenticated?.(user, ctx);
      // Errors from later middleware or the handler are theirs: they propagate untouched.
      return next();
    },
  };
  if (options.skipPaths && options.skipPaths.length > 0) definition.excludePaths = [...options.skipPaths];
  return definition;
}
