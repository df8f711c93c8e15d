import { ConfigurationError, MAX_OUTPUT_TOKENS_LIMIT } from "@conduit-ai/server-core";
import { tokenPriceSchema } from "@conduit-ai/server-core/pricing";
import { z } from "zod";
import { type AdminRole, parseAdminRole } from "../roles/admin-roles.js";

const adminKeySecret = z.string().min(32, "an admin key has at least 32 characters");
const adminRole = z
  .string()
  .refine((role) => parseAdminRole(role) !== undefined, 'expected "admin" | "viewer" | "auditor" | "team-admin:<team id>"')
  .transform((role) => parseAdminRole(role) as AdminRole);

/**
 * The `admin` config key: admin secrets of at least 32 characters, each a bare string (role
 * `admin`) or `{"key", "role"}` with a role of the admin API.
 */
export const adminConfigSchema = z.strictObject({
  keys: z
    .array(
      z.union([adminKeySecret, z.strictObject({ key: adminKeySecret, role: adminRole })], {
        error: 'expected "<admin key of at least 32 characters>" or {"key": "<admin key>", "role": "<role>"}',
      }),
    )
    .default([]),
});

/** The `keys` config key: turns virtual keys on. */
export const keysConfigSchema = z.strictObject({
  store: z.enum(["memory", "redis"]).default("memory"),
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, "letters, digits, '-' and '_' (at most 32)")
    .default("sk-conduit-"),
  /** HMAC secret of the stored digests (or env `CONDUIT_KEYS_SECRET`). */
  secret: z.string().min(16).optional(),
  /** Output tokens reserved when a request names no maximum (default 4096; at most 10^7). */
  defaultMaxOutputTokens: z.number().int().positive().max(MAX_OUTPUT_TOKENS_LIMIT).optional(),
  /**
   * A model with no row in `prices`: `refuse` (default) answers 403 to a key or team with a
   * budget (the others run it, unpriced), `estimate` prices it as its vendor's dearest model,
   * `allow` runs it free of every budget. Each unpriced model is warned about once.
   */
  unpricedModels: z.enum(["refuse", "estimate", "allow"]).default("refuse"),
  /** Also label metrics per key (cardinality grows with the keys: off by default). */
  metricsPerKey: z.boolean().default(false),
});

export type AdminConfig = z.infer<typeof adminConfigSchema>;
export type AdminConfigInput = z.input<typeof adminConfigSchema>;
export type KeysConfig = z.infer<typeof keysConfigSchema>;
export type KeysConfigInput = z.input<typeof keysConfigSchema>;

/** The top-level `prices` key: USD per million tokens by model id prefix, over the defaults (rows as `tokenPriceSchema`). */
export const pricesConfigSchema = z.record(z.string().min(1), tokenPriceSchema);

/**
 * The `admin`, `keys` and `prices` keys checked: a mistake is a `ConfigurationError` naming
 * each bad field by key path (`admin.keys.0: …`, `keys.store: expected "memory" | "redis"`).
 *
 * @example
 * const { keys, admin } = parseGovernanceConfig({ keys: { store: "redis" }, admin: { keys: [process.env.CONDUIT_ADMIN_KEY] } });
 */
export function parseGovernanceConfig(input: { admin?: unknown; keys?: unknown; prices?: unknown }): {
  admin?: AdminConfig;
  keys?: KeysConfig;
  prices?: z.infer<typeof pricesConfigSchema>;
} {
  const result: ReturnType<typeof parseGovernanceConfig> = {};
  for (const [name, schema] of [
    ["admin", adminConfigSchema],
    ["keys", keysConfigSchema],
    ["prices", pricesConfigSchema],
  ] as const) {
    const value = input[name];
    if (value === undefined) continue;
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw ConfigurationError.ofZod(parsed.error, name);
    Object.assign(result, { [name]: parsed.data });
  }
  return result;
}
