import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { HealthSource, MiddlewareDefinition, RequestHandler, RouteDefinition, RouteGroup } from "@conduit-ai/server-core";
import { getServerMetrics } from "@conduit-ai/server-core/metrics";
import { type CredentialFailureGuard, type CredentialRule, installRequestFeed } from "@conduit-ai/server-core/internal";
import { createStaticRoutes } from "@conduit-ai/server-core/node";
import { type AdminRequestCheck, type CredentialUserResolver, adminCredentialPrincipal } from "./admin-check.js";
import type { ConsoleAuditLog } from "./console-principal.js";
import type { ConsoleSsoOptions } from "./console-sso.js";
import { type ConsoleAccounts, createConsoleApiRoutes } from "./console-api-routes.js";
import { consoleGuard } from "./console-security.js";
import { consolePresenter } from "./forward.js";
import { ConsoleSessions, DEFAULT_SESSION_TTL_MS } from "./console-sessions.js";
import { type ConsoleSessionStore, MemoryConsoleSessionStore } from "./session-store.js";

/** The built console (`vite build` writes it here; the published package carries it). */
export const CONSOLE_ASSETS_DIRECTORY = fileURLToPath(new URL("../dist/public/", import.meta.url));

export interface ConsoleOptions {
  /**
   * Governance's admin check (`governance.checkAdmin`, or `createAdminCheck({keys})` of
   * `@conduit-ai/governance`): the same rule as the admin API's. Asked at sign-in and on every
   * console request, so a revoked credential ends its sessions at once.
   */
  checkAdmin: AdminRequestCheck;
  /** The server's own auth (a credential → its user), so a user the check admits by role may sign in. */
  resolveUser?: CredentialUserResolver;
  /**
   * How the server's own auth reads a credential (its `CredentialRule`: scheme, header): the
   * console forwards a signed-in user's credential to `/admin/*` that way (`x-api-key`, Basic…),
   * so the server's auth admits it. An admin key is always presented as `Authorization: Bearer`.
   */
  serverCredentialRule?: CredentialRule;
  /** The config's admin keys: sessions signed in with one work on every process sharing the session store. */
  adminKeys?: readonly string[];
  /** Session lifetime in milliseconds (default 8 hours). */
  sessionTtlMs?: number;
  /** Where sessions live (default: this process's memory; `RedisConsoleSessionStore` to share them). */
  sessions?: ConsoleSessionStore;
  /**
   * Failed sign-ins, per address and per credential (default: this process's memory). Pass
   * `governance.credentialFailures` so the console and the admin API count failures together (on Redis when governance has it).
   */
  credentialFailures?: CredentialFailureGuard;
  /** The proxy's accounts for the Accounts page (e.g. `proxy.pool`); absent → the page says there is no proxy. */
  accounts?: ConsoleAccounts;
  /** Where the console is served (default `/console`). */
  path?: string;
  /** The built files (default: this package's `dist/public`). */
  assetsDirectory?: string;
  /**
   * Single sign-on through the company's identity provider ("Sign in with <name>" beside the
   * credential form): the provider's client (`createOidcSignIn` of `@conduit-ai/auth-providers`),
   * the claim holding the user's groups and the map from its values to console roles.
   */
  sso?: ConsoleSsoOptions;
  /**
   * The audit log (`governance.audit`): sign-ins, failed sign-ins, sign-outs and account control
   * are appended to it (the admin API records its own writes).
   */
  audit?: ConsoleAuditLog;
}

/** What `mountConsole` needs of a server: any Conduit adapter. */
export interface ConsoleHost extends HealthSource {
  readonly handler: RequestHandler;
  registerRouteGroup(group: RouteGroup): void;
  registerMiddleware(middleware: MiddlewareDefinition): void;
}

/**
 * Mounts the operator console: its pages at `GET /console` (served by server-core's static
 * route), its API at `/console/api/*` behind a sign-in with an admin credential. Call it only
 * when an admin credential exists — without one the server has no `/console` at all (404 like
 * any unknown path). Every answer carries a strict Content-Security-Policy; writes from another
 * site are refused (403); the session cookie is `HttpOnly; SameSite=Strict` (`Secure` over HTTPS).
 *
 * @example
 * mountConsole(server, { checkAdmin: governance.checkAdmin, adminKeys });
 */
export function mountConsole(server: ConsoleHost, options: ConsoleOptions): void {
  const prefix = `/${(options.path ?? "/console").replace(/^\/+|\/+$/g, "")}`;
  const directory = options.assetsDirectory ?? CONSOLE_ASSETS_DIRECTORY;
  if (!existsSync(directory))
    throw new Error(`The console's built files are missing (${directory}): run "pnpm --filter @conduit-ai/console build"`);
  const store = options.sessions ?? new MemoryConsoleSessionStore();
  const sessions = new ConsoleSessions({
    store,
    verifyAdmin: adminCredentialPrincipal(options.checkAdmin, options.resolveUser),
    ...(options.audit ? { audit: options.audit } : {}),
    ttlMs: options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
    path: prefix,
    ...(options.adminKeys ? { adminKeys: options.adminKeys } : {}),
    ...(options.credentialFailures ? { failures: options.credentialFailures } : {}),
  });
  const routes: RouteDefinition[] = createConsoleApiRoutes({
    prefix,
    sessions,
    handler: server.handler,
    feed: installRequestFeed(server),
    metrics: () => getServerMetrics(server),
    health: server,
    present: consolePresenter(options.checkAdmin, options.serverCredentialRule),
    check: options.checkAdmin,
    store,
    ...(options.accounts ? { accounts: options.accounts } : {}),
    ...(options.sso ? { sso: options.sso } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
  });
  const guard = consoleGuard();
  // The API first: native routers that match in registration order must not send it to the static wildcard.
  server.registerRouteGroup({ prefix, middleware: [guard], routes });
  server.registerRouteGroup(createStaticRoutes({ prefix, directory, middleware: [guard], bareIndex: "redirect" }));
}
