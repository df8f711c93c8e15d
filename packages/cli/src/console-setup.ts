import type { Governance } from "@conduit-ai/governance";
import type { ServerAdapter } from "@conduit-ai/server-core";
import type { CredentialRule } from "@conduit-ai/server-core/middleware";
import type { SharedRedis } from "./redis-setup.js";
import { UsageError } from "./usage-error.js";

/** What the console needs of the server's own auth: a credential → the user it names (with roles), or null. */
export type CredentialValidator = (credential: string) => Promise<{ roles: string[] } | null> | { roles: string[] } | null;

export interface ConsoleSetupInput {
  /** The config file's `admin` key: `{"keys": ["<≥ 32 characters>"]}`. */
  admin: unknown;
  /** The config file's `console` key: `{"enabled"?: boolean, "sessionTtlSeconds"?: number}`. */
  console: unknown;
  /** The server's auth, when configured: a user with role `admin` may sign in. */
  validateCredential?: CredentialValidator;
  /** How the server's auth reads a credential: the console forwards a signed-in user's credential to `/admin/*` that way. */
  credentialRule?: CredentialRule;
  redis?: SharedRedis;
  env: NodeJS.ProcessEnv;
  /** The proxy, when mounted: the Accounts page shows its pool and disables or enables accounts. */
  proxy?: { pool: ConsoleAccountPool };
  /** Governance, when the file has a `keys` section: its admin check is the console's (one rule for who is admin). */
  governance?: Pick<Governance, "checkAdmin" | "credentialFailures">;
}

/** The part of the proxy's account pool the console uses. */
export interface ConsoleAccountPool {
  rows(): Promise<unknown[]>;
  disable(accountId: string, reason: string): Promise<void>;
  enable(accountId: string): Promise<void>;
}

/** The `admin.keys` of the config file (empty when absent); a bad value is a `UsageError`. */
export function parseAdminKeys(section: unknown): string[] {
  if (section === undefined) return [];
  const keys = (section as { keys?: unknown } | null)?.keys;
  if (
    typeof section !== "object" ||
    section === null ||
    !Array.isArray(keys) ||
    keys.some((key) => typeof key !== "string" || key.length < 32)
  )
    throw new UsageError('Config file: invalid admin: expected {"keys": ["<admin key of at least 32 characters>", ...]}');
  return keys as string[];
}

/** The longest console session a config may ask for: 30 days (the cookie's Max-Age and the store's TTL hold it). */
export const MAX_CONSOLE_SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The config file's `console` key; a bad value is a `UsageError` naming the key. */
export function parseConsoleSection(section: unknown): { enabled: boolean; sessionTtlMs?: number } {
  if (section === undefined) return { enabled: true };
  const expected = `expected {"enabled"?: boolean, "sessionTtlSeconds"?: integer 1-${MAX_CONSOLE_SESSION_TTL_SECONDS}}`;
  if (typeof section !== "object" || section === null || Array.isArray(section))
    throw new UsageError(`Config file: invalid console: ${expected}`);
  const { enabled, sessionTtlSeconds, ...rest } = section as { enabled?: unknown; sessionTtlSeconds?: unknown };
  const bad = [
    ...Object.keys(rest).map((key) => `console.${key}`),
    ...(enabled === undefined || typeof enabled === "boolean" ? [] : ["console.enabled"]),
    ...(sessionTtlSeconds === undefined ||
    (Number.isInteger(sessionTtlSeconds) &&
      (sessionTtlSeconds as number) > 0 &&
      (sessionTtlSeconds as number) <= MAX_CONSOLE_SESSION_TTL_SECONDS)
      ? []
      : ["console.sessionTtlSeconds"]),
  ];
  if (bad.length > 0) throw new UsageError(`Config file: invalid ${bad.join(", ")}: ${expected}`);
  return { enabled: enabled !== false, ...(sessionTtlSeconds === undefined ? {} : { sessionTtlMs: (sessionTtlSeconds as number) * 1000 }) };
}

/** True when `setupConsole` will mount the console for this config file (so the server's auth lets its paths through). */
export function consoleWanted(file: { [key: string]: unknown }, env: NodeJS.ProcessEnv = process.env): boolean {
  return parseConsoleSection(file.console).enabled && (adminKeysOf(file.admin, env).length > 0 || file.auth !== undefined);
}

/**
 * `admin.keys`, plus `CONDUIT_ADMIN_KEY` (as the governance package reads it). A
 * `CONDUIT_ADMIN_KEY` shorter than 32 characters is a `UsageError`: ignoring it would leave the
 * operator locked out with no word why.
 */
export function adminKeysOf(section: unknown, env: NodeJS.ProcessEnv): string[] {
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
  if (!options.enabled || (adminKeys.length === 0 && input.validateCredential === undefined)) return false;
  const { MemoryConsoleSessionStore, RedisConsoleSessionStore, mountConsole } = await import("@conduit-ai/console");
  const checkAdmin = input.governance?.checkAdmin ?? (await import("@conduit-ai/governance")).createAdminCheck({ keys: adminKeys });
  const validate = input.validateCredential;
  const prefix = `${input.env.REDIS_KEY_PREFIX || "conduit:"}console:session:`;
  const proxy = input.proxy;
  mountConsole(server as unknown as Parameters<typeof mountConsole>[0], {
    checkAdmin,
    ...(validate ? { resolveUser: validate } : {}),
    ...(input.credentialRule ? { serverCredentialRule: input.credentialRule } : {}),
    adminKeys,
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
