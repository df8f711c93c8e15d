import { ConfigurationError } from "@conduit-ai/server-core";
import { z } from "zod";

/** The longest console session a config may ask for: 30 days (the cookie's Max-Age and the store's TTL hold it). */
const MAX_SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** A role of the admin API and the console, as governance's `parseAdminRole` reads it. */
const consoleRole = z
  .string()
  .regex(/^(admin|viewer|auditor|team-admin:[A-Za-z0-9_.-]{1,64})$/, 'expected "admin" | "viewer" | "auditor" | "team-admin:<team id>"');

const ssoSchema = z.strictObject({
  provider: z.string().min(1, "expected the name of an auth.providers entry"),
  rolesClaim: z.string().min(1).default("groups"),
  roleMap: z.record(z.string(), consoleRole).refine((map) => Object.keys(map).length > 0, "expected at least one claim value → role"),
});

/**
 * The `console` config key: `enabled` (default true), `sessionTtlSeconds` (1 s … 30 days) and
 * `sso` (which `auth.providers` entry signs users in, and how its claim values map to roles).
 */
export const consoleConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  sessionTtlSeconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_SESSION_TTL_SECONDS, `expected at most ${MAX_SESSION_TTL_SECONDS} (30 days)`)
    .optional(),
  sso: ssoSchema.optional(),
});

/** `console.sso` checked: the provider's name, the claim holding roles, claim value → role. */
export type ConsoleSsoConfig = z.output<typeof ssoSchema>;

/** The `console` key as the console is mounted with it. */
export interface ConsoleConfig {
  enabled: boolean;
  /** From `sessionTtlSeconds`; absent: `DEFAULT_SESSION_TTL_MS`. */
  sessionTtlMs?: number;
  sso?: ConsoleSsoConfig;
}

/**
 * The `console` config key checked (absent: enabled, default session lifetime, no SSO). A
 * mistake is a `ConfigurationError` naming the key (`console.sso.roleMap.ops: expected "admin" | …`).
 *
 * @example
 * parseConsoleConfig({ sessionTtlSeconds: 3600 }); // { enabled: true, sessionTtlMs: 3_600_000 }
 */
export function parseConsoleConfig(input: unknown): ConsoleConfig {
  if (input === undefined) return { enabled: true };
  const result = consoleConfigSchema.safeParse(input);
  if (!result.success) throw ConfigurationError.ofZod(result.error, "console");
  const { enabled, sessionTtlSeconds, sso } = result.data;
  return {
    enabled,
    ...(sessionTtlSeconds === undefined ? {} : { sessionTtlMs: sessionTtlSeconds * 1000 }),
    ...(sso === undefined ? {} : { sso }),
  };
}
