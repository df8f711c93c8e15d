import { digestsEqual } from "@conduit-ai/server-core/internal";
import type { IncomingHttpHeaders } from "node:http";
import type { MiddlewareDefinition } from "@conduit-ai/server-core";
import { type CredentialRule, credentialSourceOf, readCredential } from "@conduit-ai/server-core/internal";
import { createApiKeyAuthMiddleware } from "./api-key-middleware.js";
import { ApiKeyStore } from "./api-key-store.js";
import { type StaticAuthConfig, type StaticBasicUserConfig, parseStaticAuthConfig } from "./auth-config-schema.js";
import { createBasicAuthMiddleware } from "./basic-auth-middleware.js";
import { createBearerAuthMiddleware } from "./bearer-middleware.js";
import { digestSecret } from "./constant-time.js";
import { defaultHeaderName } from "./extract-token.js";
import type { AuthenticatedUser } from "./auth-types.js";
import { toAuthenticatedUser } from "./authenticated-user.js";

/**
 * Health and readiness stay reachable for probes whatever the config says (matched with and
 * without `basePath`, so `/api/health`, `/api/health/live` and `/api/health/ready` too).
 * `/health/detailed` is not among them: it needs the same credentials as every other route.
 */
export const ALWAYS_PUBLIC_PATHS = ["/health", "/health/live", "/health/ready", "/ready"];

/** Usernames → password digests; every lookup does one comparison even for unknown names. */
function basicUserValidator(users: Record<string, StaticBasicUserConfig>) {
  const table = new Map<string, { digest: Buffer; user: AuthenticatedUser }>();
  for (const [username, { password, ...profile }] of Object.entries(users)) {
    const user = toAuthenticatedUser({ ...profile, id: profile.id ?? username }) as AuthenticatedUser;
    table.set(username, { digest: digestSecret(password), user });
  }
  const decoy = digestSecret("");
  return (username: string, password: string): AuthenticatedUser | null => {
    const entry = table.get(username);
    const matches = digestsEqual(digestSecret(password), entry?.digest ?? decoy);
    return entry && matches ? structuredClone(entry.user) : null;
  };
}

/**
 * Builds the auth middleware from a static config (the demo's `auth` key): API keys,
 * bearer tokens or Basic users, each compared in constant time. The config is checked
 * first; a bad one throws `ConfigurationError` naming the bad keys (never a secret).
 * `/health`, `/health/live`, `/health/ready` and `/ready` (with and without `basePath`) are always
 * public; `/health/detailed` is not.
 *
 * @example
 * for (const middleware of createAuthFromConfig({
 *   type: "api-key",
 *   keys: { "demo-key-123": { id: "demo", roles: ["admin"], permissions: ["*"] } },
 *   skipPaths: ["/api/docs*"],
 * })) server.registerMiddleware(middleware);
 */
export function createAuthFromConfig(config: unknown): MiddlewareDefinition[] {
  const parsed: StaticAuthConfig = parseStaticAuthConfig(config);
  if (parsed.enabled === false) return [];
  const shared = {
    headerName: parsed.headerName,
    cookieName: parsed.cookieName,
    queryParam: parsed.queryParam,
    errorMessage: parsed.errorMessage,
    skipDevPlayground: parsed.skipDevPlayground,
    devPlayground: parsed.devPlayground,
    realm: parsed.realm,
    ambientContext: parsed.ambientContext,
  };
  // exactOptionalPropertyTypes: leave out what the config leaves out, so defaults apply.
  const defined = {
    ...Object.fromEntries(Object.entries(shared).filter(([, value]) => value !== undefined)),
    skipPaths: [...ALWAYS_PUBLIC_PATHS, ...(parsed.skipPaths ?? [])],
  };
  switch (parsed.type) {
    case "api-key": {
      const store = new ApiKeyStore();
      for (const [key, user] of Object.entries(parsed.keys)) store.addKey(key, user);
      return [createApiKeyAuthMiddleware({ ...defined, store })];
    }
    case "bearer": {
      const store = new ApiKeyStore();
      for (const [token, user] of Object.entries(parsed.tokens)) store.addKey(token, user);
      return [createBearerAuthMiddleware({ ...defined, validate: (token) => store.validate(token) })];
    }
    case "basic":
      return [createBasicAuthMiddleware({ ...defined, validate: basicUserValidator(parsed.users) })];
  }
}

/** A static config's credential check, for surfaces outside the HTTP pipeline (the WebSocket upgrade). */
export interface StaticCredentialValidator {
  /** The WebSocket auth strategy speaking the same credential. */
  strategy: "apiKey" | "bearer" | "basic";
  /** The header carrying the credential, as the HTTP middleware reads it (`headerName` or the scheme's default). */
  headerName: string;
  /** Where the credential is looked for (header, cookie, query): the HTTP middleware's rule, for the upgrade. */
  rule: CredentialRule;
  /**
   * The credential of a request (an upgrade), by exactly the HTTP middleware's rule (server-core's
   * `readCredential`: same header, cookie and query parameter, same scheme parsing).
   */
  extractCredential(request: { headers: IncomingHttpHeaders; url?: string | undefined }): string | undefined;
  /** Checks an API key, a bearer token, or a decoded `username:password`. */
  validate(credential: string): AuthenticatedUser | null;
}

/**
 * The same credentials as `createAuthFromConfig` — same header, same parsing, same secrets —
 * as one validator for the WebSocket upgrade; undefined when auth is disabled.
 *
 * @example
 * const check = createStaticCredentialValidator(config.auth);
 * attachWebSocket(server, {
 *   runtime,
 *   auth: check
 *     ? { strategy: "custom", extractToken: (request) => check.extractCredential(request), validate: (credential) => check.validate(credential) ?? undefined }
 *     : { strategy: "none" },
 * });
 */
export function createStaticCredentialValidator(config: unknown): StaticCredentialValidator | undefined {
  const parsed: StaticAuthConfig = parseStaticAuthConfig(config);
  if (parsed.enabled === false) return undefined;
  const headerName = (parsed.headerName ?? defaultHeaderName(parsed.type)).toLowerCase();
  const rule: CredentialRule = { scheme: parsed.type, headerName, cookieName: parsed.cookieName, queryParam: parsed.queryParam };
  const extract = (request: { headers: IncomingHttpHeaders; url?: string | undefined }): string | undefined => {
    const extraction = readCredential(credentialSourceOf(request), rule);
    return extraction.kind === "token" ? extraction.token : undefined;
  };
  if (parsed.type === "basic") {
    const check = basicUserValidator(parsed.users);
    return {
      strategy: "basic",
      headerName,
      rule,
      extractCredential: extract,
      validate: (credential) => {
        const separator = credential.indexOf(":");
        return separator === -1 ? null : check(credential.slice(0, separator), credential.slice(separator + 1));
      },
    };
  }
  const store = new ApiKeyStore();
  const entries = parsed.type === "api-key" ? parsed.keys : parsed.tokens;
  for (const [secret, user] of Object.entries(entries)) store.addKey(secret, user);
  return {
    strategy: parsed.type === "api-key" ? "apiKey" : "bearer",
    headerName,
    rule,
    extractCredential: extract,
    validate: (credential) => store.validate(credential) ?? null,
  };
}
