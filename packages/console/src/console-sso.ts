import { randomBytes } from "node:crypto";
import { type RouteDefinition, ServerAdapterError, type ServerContext, rawResponse, storeCall } from "@conduit-ai/server-core";
import { digestsEqual, secretDigestBytes, servedOverHttps } from "@conduit-ai/server-core/internal";
import { joinPaths } from "@conduit-ai/server-core/node";
import type { ConsolePrincipal } from "./console-principal.js";
import { ownOrigin } from "./console-security.js";
import type { ConsoleSessions } from "./console-sessions.js";
import { readCookie } from "./session-cookie.js";
import { type ConsoleSessionStore, sessionKey } from "./session-store.js";

/** The OpenID Provider client the console signs users in with (`createOidcSignIn` of `@conduit-ai/auth-providers`). */
export interface ConsoleSignInClient {
  start(redirectUri: string): Promise<{ url: string; state: string; nonce: string; verifier: string }>;
  finish(input: { code: string; redirectUri: string; verifier: string; nonce: string }): Promise<Record<string, unknown>>;
  endSessionUrl(postLogoutRedirectUri: string): Promise<string | undefined>;
}

/** Single sign-on for the console (config `console.sso`). */
export interface ConsoleSsoOptions {
  /** The provider's name, shown as "Sign in with <name>". */
  name: string;
  client: ConsoleSignInClient;
  /** The ID token claim holding the user's groups or roles (a dotted path: `realm_access.roles`). Default `groups`. */
  rolesClaim?: string;
  /** Claim value → console role: `admin`, `team-admin:<team id>`, `viewer` or `auditor`. */
  roleMap: Record<string, string>;
}

/** The cookie binding a sign-in's callback to the browser that started it. */
export const SSO_BINDING_COOKIE = "conduit_console_sso";
/** A sign-in must come back within this long. */
const PENDING_TTL_MS = 10 * 60 * 1000;
const PENDING_PREFIX = "sso-pending:";

const digest = secretDigestBytes;

/** The claim at a dotted path, as a list of strings (an array, or one string). */
function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = claims;
  for (const part of path.split("."))
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** Most powerful first, as governance ranks a user's several roles. */
function strongest(roles: string[]): string | undefined {
  return (
    roles.find((role) => role === "admin") ??
    roles.find((role) => role.startsWith("team-admin:")) ??
    roles.find((role) => role === "viewer") ??
    roles.find((role) => role === "auditor")
  );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A page the browser lands on when a sign-in is refused: says why, and links back to the sign-in. */
function refusalPage(prefix: string, status: number, title: string, message: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Conduit console</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(`${prefix}/`)}">Back to the sign-in</a></p></main></body></html>`;
  return rawResponse(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

function bindingCookie(ctx: ServerContext, path: string, value: string, maxAgeSeconds: number): string {
  // Lax, not Strict: the callback is a top-level navigation started by the identity provider (another
  // site), on which a Strict cookie is never sent. The session cookie itself stays Strict.
  const parts = [`${SSO_BINDING_COOKIE}=${value}`, `Path=${path}`, `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (servedOverHttps(ctx)) parts.push("Secure");
  return parts.join("; ");
}

/**
 * `GET <prefix>/api/sso/start` (302 to the provider: code flow, PKCE S256, state, nonce) and
 * `GET <prefix>/api/sso/callback` (the code exchanged, the ID token verified, the role mapped
 * from `rolesClaim` by `roleMap`, then the console's usual session cookie). A refused sign-in
 * lands on a page that says why; failed callbacks count in the failed-sign-in limiter.
 */
export function createSsoRoutes(options: {
  prefix: string;
  sso: ConsoleSsoOptions;
  sessions: ConsoleSessions;
  store: ConsoleSessionStore;
  route: (method: "GET", path: string, handler: (ctx: ServerContext) => unknown) => RouteDefinition;
}): RouteDefinition[] {
  const { prefix, sso, sessions, store, route } = options;
  const cookiePath = joinPaths(prefix, "api", "sso");
  const redirectUri = (ctx: ServerContext) => `${ownOrigin(ctx) ?? ""}${joinPaths(prefix, "api", "sso", "callback")}`;
  const rolesClaim = sso.rolesClaim ?? "groups";
  // Redis down or hung: 503 STORE_UNAVAILABLE with Retry-After, as for every session call.
  const stored = <T>(operation: () => Promise<T>) => storeCall("console-sessions", operation);

  const start = async (ctx: ServerContext) => {
    const begun = await sso.client.start(redirectUri(ctx)).catch(() => undefined);
    if (!begun)
      return refusalPage(prefix, 503, "The identity provider cannot be reached", `${sso.name} did not answer; try again in a minute.`);
    const binding = randomBytes(32).toString("base64url");
    const now = Date.now();
    const pending = { verifier: begun.verifier, nonce: begun.nonce, binding: digest(binding).toString("hex") };
    await stored(() =>
      store.set(PENDING_PREFIX + sessionKey(begun.state), { pending, createdAt: now, expiresAt: now + PENDING_TTL_MS }, PENDING_TTL_MS),
    );
    ctx.setHeader("set-cookie", bindingCookie(ctx, cookiePath, binding, PENDING_TTL_MS / 1000));
    return rawResponse(null, { status: 302, headers: { location: begun.url, "cache-control": "no-store" } });
  };

  const callback = async (ctx: ServerContext) => {
    const query = ctx.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === "string" ? (query[name] as string) : undefined);
    const state = text("state");
    // The binding cookie is spent whatever happens next.
    ctx.setHeader("set-cookie", bindingCookie(ctx, cookiePath, "", 0));
    const attempt = await sessions.failureGuard.check(ctx, `sso:${sso.name}:${state ?? ""}`).catch((error: unknown) => {
      if (ServerAdapterError.isInstance(error) && error.statusCode === 429) return undefined;
      throw error;
    });
    if (attempt === undefined) {
      await sessions.refused(ctx, undefined, "too many failed sign-ins", sso.name);
      return refusalPage(prefix, 429, "Too many failed sign-ins", "Too many failed sign-ins from this address; try again later.");
    }
    const refuse = async (status: number, title: string, message: string, actor?: Pick<ConsolePrincipal, "kind" | "id" | "hint">) => {
      await sessions.refused(ctx, actor, title, sso.name);
      try {
        await sessions.failureGuard.failed(attempt);
      } catch {
        // Over the limit now: this answer still says why this sign-in failed; the next one is a 429.
      }
      return refusalPage(prefix, status, title, message);
    };
    const providerError = text("error");
    if (providerError) return refuse(401, "Sign-in refused", `${sso.name} refused the sign-in (${providerError.slice(0, 100)}).`);
    const code = text("code");
    if (!state || !code) return refuse(400, "Sign-in incomplete", "The identity provider sent no code or no state back.");
    const key = PENDING_PREFIX + sessionKey(state);
    const pending = (await stored(() => store.get(key)))?.pending;
    // One use: a replayed callback finds nothing.
    await stored(() => store.delete(key));
    const binding = readCookie(ctx, SSO_BINDING_COOKIE);
    const bound = pending !== undefined && binding !== undefined && digestsEqual(digest(binding), Buffer.from(pending.binding, "hex"));
    if (!pending || !bound)
      return refuse(400, "Sign-in expired", "This sign-in expired or was started in another browser; start again from the sign-in page.");
    let claims: Record<string, unknown>;
    try {
      claims = await sso.client.finish({ code, redirectUri: redirectUri(ctx), verifier: pending.verifier, nonce: pending.nonce });
    } catch {
      return refuse(401, "Sign-in refused", `The answer from ${sso.name} could not be verified.`);
    }
    const subject = typeof claims.sub === "string" ? claims.sub : "";
    const hint = [claims.email, claims.preferred_username, claims.name].find((value): value is string => typeof value === "string");
    const actor = { kind: "user" as const, id: subject, ...(hint ? { hint } : {}) };
    const role = strongest(claimValues(claims, rolesClaim).flatMap((value) => (sso.roleMap[value] ? [sso.roleMap[value] as string] : [])));
    if (role === undefined)
      return refuse(
        403,
        "No console role for this account",
        `${hint ?? subject} signed in at ${sso.name}, but none of their ${rolesClaim} maps to a console role. Ask an administrator to add one to console.sso.roleMap.`,
        actor,
      );
    await sessions.failureGuard.succeeded(attempt);
    await sessions.signInAs(ctx, { ...actor, role }, sso.name);
    ctx.appendHeader("set-cookie", bindingCookie(ctx, cookiePath, "", 0));
    return rawResponse(null, { status: 302, headers: { location: `${prefix}/`, "cache-control": "no-store" } });
  };

  return [route("GET", "/sso/start", start), route("GET", "/sso/callback", callback)];
}

/** The provider's end-session URL for a single sign-on session, back to the console. */
export function endSessionUrl(ctx: ServerContext, prefix: string, sso: ConsoleSsoOptions): Promise<string | undefined> {
  return sso.client.endSessionUrl(`${ownOrigin(ctx) ?? ""}${prefix}/`).catch(() => undefined);
}
