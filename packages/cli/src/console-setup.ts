import { type ConsoleConfig, type ConsoleSsoConfig, parseConsoleConfig } from "@conduit-ai/console";
import { type Governance, parseGovernanceConfig } from "@conduit-ai/governance";
import type { ServerAdapter } from "@conduit-ai/server-core";
import type { CredentialRule } from "@conduit-ai/server-core/internal";
import type { SharedRedis } from "./redis-setup.js";
import { withoutAuthProviders } from "./mcp-gateway-setup.js";
import { UsageError } from "./usage-error.js";

/** What the console needs of the server's own auth: a credential → the user it names (with roles), or null. */
export type CredentialValidator = (credential: string) => Promise<{ roles: string[] } | null> | { roles: string[] } | null;

export interface ConsoleSetupInput {
  /** The config file's `admin` key: `{"keys": ["<≥ 32 characters>"]}`. */
  admin: unknown;
  /** The config file's `console` key: `{"enabled"?: boolean, "sessionTtlSeconds"?: number, "sso"?: {…}}`. */
  console: unknown;
  /** The config file's `auth` key: its `providers` are what `console.sso.provider` names. */
  auth?: unknown;
  /** The server's auth, when configured: a user with role `admin` may sign in. */
  validateCredential?: CredentialValidator;
  /** How the server's auth reads a credential: the console forwards a signed-in user's credential to `/admin/*` that way. */
  credentialRule?: CredentialRule;
  redis?: SharedRedis;
  env: NodeJS.ProcessEnv;
  /** The proxy, when mounted: the Accounts page shows its pool and disables or enables accounts. */
  proxy?: { pool: ConsoleAccountPool };
  /** Governance, when the file has a `keys` section: its admin check is the console's (one rule for who is admin). */
  governance?: Pick<Governance, "checkAdmin" | "credentialFailures" | "audit">;
}

/** The part of the proxy's account pool the console uses. */
export interface ConsoleAccountPool {
  rows(): Promise<unknown[]>;
  disable(accountId: string, reason: string): Promise<void>;
  enable(accountId: string): Promise<void>;
}

/** An admin key of the config: a bare string (role `admin`) or `{"key", "role"}`. */
export type AdminKeyEntry = string | { key: string; role: string };

/** The secret of an admin key entry. */
export const adminKeySecret = (entry: AdminKeyEntry): string => (typeof entry === "string" ? entry : entry.key);

/** A section's `ConfigurationError` as the CLI's usage error (exit 2), its key path kept. */
function asUsageError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if ((error as { code?: unknown }).code === "INVALID_CONFIG") throw new UsageError(`Config file: ${(error as Error).message}`);
    throw error;
  }
}

/** The `admin.keys` of the config file (empty when absent), checked by governance's schema; a bad value is a `UsageError` naming the key. */
export function parseAdminKeys(section: unknown): AdminKeyEntry[] {
  if (section === undefined) return [];
  return asUsageError(() => parseGovernanceConfig({ admin: section }).admin?.keys ?? []);
}

/** `console.sso`: which `auth.providers` entry the console signs users in with, and how their claims map to roles. */
export type ConsoleSsoSection = ConsoleSsoConfig;

/** The config file's `console` key, checked by the console's schema; a bad value is a `UsageError` naming the key. */
export function parseConsoleSection(section: unknown): ConsoleConfig {
  return asUsageError(() => parseConsoleConfig(section));
}

/** An `auth.providers` entry: an identity provider users sign in at (the console's single sign-on). */
export interface IdentityProviderEntry {
  type: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scopes?: string[];
  discoveryUrl?: string;
}

/**
 * `auth.providers`: named identity providers, each an `@conduit-ai/auth-providers` config with a
 * `type` (shared with the MCP gateway, which validates and exchanges tokens with them). An entry
 * `console.sso.provider` names must also carry what a browser sign-in needs: `issuer` and
 * `clientId` (`clientSecret`, `scopes`, `discoveryUrl` when given); its other keys are the MCP
 * gateway's. They guard no route of the server itself.
 */
export function parseIdentityProviders(auth: unknown, signInWith?: string): Record<string, IdentityProviderEntry> {
  const providers = typeof auth === "object" && auth !== null ? (auth as { providers?: unknown }).providers : undefined;
  if (providers === undefined) return {};
  const expected =
    'expected {"<name>": {"type": "oidc" | "oauth2" | "jwt" | "<vendor>", "issuer": "https://…", "clientId": "…", "clientSecret"?: "…", "scopes"?: ["openid", …]}}';
  if (typeof providers !== "object" || providers === null || Array.isArray(providers))
    throw new UsageError(`Config file: invalid auth.providers: ${expected}`);
  const bad: string[] = [];
  const isUrl = (value: unknown) => typeof value === "string" && /^https?:\/\/[^\s]+$/.test(value);
  for (const [name, entry] of Object.entries(providers)) {
    const at = `auth.providers.${name}`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry) || typeof (entry as { type?: unknown }).type !== "string") {
      bad.push(at);
      continue;
    }
    if (name !== signInWith) continue;
    const { issuer, clientId, clientSecret, scopes, discoveryUrl } = entry as Record<string, unknown>;
    if (!isUrl(issuer)) bad.push(`${at}.issuer`);
    if (typeof clientId !== "string" || clientId === "") bad.push(`${at}.clientId`);
    if (clientSecret !== undefined && (typeof clientSecret !== "string" || clientSecret === "")) bad.push(`${at}.clientSecret`);
    if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === "string"))) bad.push(`${at}.scopes`);
    if (discoveryUrl !== undefined && !isUrl(discoveryUrl)) bad.push(`${at}.discoveryUrl`);
  }
  if (bad.length > 0) throw new UsageError(`Config file: invalid ${bad.join(", ")}: ${expected}`);
  return providers as Record<string, IdentityProviderEntry>;
}

/**
 * The server's own auth: the `auth` section without `providers` (those sign users in to the
 * console and guard no route), or undefined when nothing else is left.
 */
export function serverAuthSection(auth: unknown): unknown {
  // The MCP gateway's reading of the same key: one rule for what the server's own auth is.
  return withoutAuthProviders({ auth }).auth;
}

/** `console.sso.provider` names an `auth.providers` entry; a `UsageError` otherwise. */
export function checkSsoProvider(file: { [key: string]: unknown }): void {
  const sso = parseConsoleSection(file.console).sso;
  const providers = parseIdentityProviders(file.auth, sso?.provider);
  if (sso && providers[sso.provider] === undefined)
    throw new UsageError(
      `Config file: console.sso.provider "${sso.provider}" names no auth.providers entry (${Object.keys(providers).join(", ") || "there are none"})`,
    );
}

/** True when `setupConsole` will mount the console for this config file (so the server's auth lets its paths through). */
export function consoleWanted(file: { [key: string]: unknown }, env: NodeJS.ProcessEnv = process.env): boolean {
  const options = parseConsoleSection(file.console);
  return (
    options.enabled && (adminKeysOf(file.admin, env).length > 0 || serverAuthSection(file.auth) !== undefined || options.sso !== undefined)
  );
}

/**
 * `admin.keys`, plus `CONDUIT_ADMIN_KEY` (as the governance package reads it). A
 * `CONDUIT_ADMIN_KEY` shorter than 32 characters is a `UsageError`: ignoring it would leave the
 * operator locked out with no word why.
 */
export function adminKeysOf(section: unknown, env: NodeJS.ProcessEnv): AdminKeyEntry[] {
  const fromEnv = env.CONDUIT_ADMIN_KEY;
  if (fromEnv && fromEnv.length < 32)
    throw new UsageError(`CONDUIT_ADMIN_KEY is shorter than 32 characters (${fromEnv.length}): give a longer admin key or unset it`);
  return [...parseAdminKeys(section), ...(fromEnv ? [fromEnv] : [])];
}

/** The paths the console answers itself; the server's auth middleware must let them through (the console signs in on its own). */
export const CONSOLE_PUBLIC_PATHS = ["/console", "/console/*"];

/**
 * Mounts the operator console (`@conduit-ai/console`, loaded only then) when an admin credential
 * exists: `admin.keys` in the config file (or `CONDUIT_ADMIN_KEY`), or the server's auth (a user with role `admin` signs in
 * with their own credential). Otherwise nothing is mounted and `/console` is a 404. Sessions live
 * in Redis with `REDIS_URL` (shared by every process), in memory otherwise.
 *
 * Who is admin is decided by governance's check, the one the `/admin` API uses: `governance.checkAdmin`
 * when the file has a `keys` section, else governance's `createAdminCheck` over the same admin keys
 * (and role `admin` of the server's auth).
 *
 * @example
 * await setupConsole(server, { admin: file.admin, console: file.console, env: process.env });
 */
export async function setupConsole(server: ServerAdapter, input: ConsoleSetupInput): Promise<boolean> {
  const adminKeys = adminKeysOf(input.admin, input.env);
  const options = parseConsoleSection(input.console);
  if (!options.enabled || (adminKeys.length === 0 && input.validateCredential === undefined && options.sso === undefined)) return false;
  const { MemoryConsoleSessionStore, RedisConsoleSessionStore, mountConsole } = await import("@conduit-ai/console");
  const { MemoryAuditSink, createAdminCheck } = await import("@conduit-ai/governance");
  // Roles were checked by governance's schema (parseAdminKeys).
  const checkAdmin =
    input.governance?.checkAdmin ?? createAdminCheck({ keys: adminKeys as Parameters<typeof createAdminCheck>[0]["keys"] });
  // Without governance (no `keys` section) the console's acts still go to an audit log: this process's memory.
  const audit = input.governance?.audit ?? new MemoryAuditSink();
  const sso = options.sso ? await ssoOptions(options.sso, input.auth) : undefined;
  const validate = input.validateCredential;
  const prefix = `${input.env.REDIS_KEY_PREFIX || "conduit:"}console:session:`;
  const proxy = input.proxy;
  mountConsole(server as unknown as Parameters<typeof mountConsole>[0], {
    checkAdmin,
    ...(validate ? { resolveUser: validate } : {}),
    ...(input.credentialRule ? { serverCredentialRule: input.credentialRule } : {}),
    adminKeys: adminKeys.map(adminKeySecret),
    audit,
    ...(sso ? { sso } : {}),
    sessions: input.redis ? new RedisConsoleSessionStore(input.redis, prefix) : new MemoryConsoleSessionStore(),
    // Failed sign-ins counted with the admin API's failed credentials (governance's guard: on Redis when it has Redis).
    ...(input.governance ? { credentialFailures: input.governance.credentialFailures } : {}),
    ...(options.sessionTtlMs ? { sessionTtlMs: options.sessionTtlMs } : {}),
    ...(proxy
      ? {
          accounts: {
            rows: () => proxy.pool.rows(),
            disable: (accountId: string) => proxy.pool.disable(accountId, "disabled by an operator (console)"),
            enable: (accountId: string) => proxy.pool.enable(accountId),
          },
        }
      : {}),
  });
  return true;
}

/** `console.sso` with its `auth.providers` entry as the console's sign-in client (`@conduit-ai/auth-providers`, loaded only then). */
async function ssoOptions(section: ConsoleSsoSection, auth: unknown) {
  const entry = parseIdentityProviders(auth, section.provider)[section.provider];
  if (entry === undefined) throw new UsageError(`Config file: console.sso.provider "${section.provider}" names no auth.providers entry`);
  const { createOidcSignIn } = await import("@conduit-ai/auth-providers");
  const client = createOidcSignIn({
    issuer: entry.issuer,
    clientId: entry.clientId,
    ...(entry.clientSecret ? { clientSecret: entry.clientSecret } : {}),
    ...(entry.scopes ? { scopes: entry.scopes } : {}),
    ...(entry.discoveryUrl ? { discoveryUrl: entry.discoveryUrl } : {}),
  });
  return { name: section.provider, client, rolesClaim: section.rolesClaim, roleMap: section.roleMap };
}
