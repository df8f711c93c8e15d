import { z } from "zod";

const limitsSchema = z.strictObject({
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  queueTimeoutMs: z.number().int().min(0).max(600_000).optional(),
});

const budgetsSchema = z
  .array(z.strictObject({ usd: z.number().positive(), window: z.enum(["day", "week", "month", "total"]) }))
  .max(4)
  .refine((budgets) => new Set(budgets.map((budget) => budget.window)).size === budgets.length, "one budget per window");

/** A UTF-16 surrogate without its partner: JSON's `\ud800` escape parses to one, but no UTF-8 store, log or CSV can hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const INVALID_UNICODE = "must be valid Unicode (a lone UTF-16 surrogate is not)";

/** Text that is valid Unicode. */
const text = () => z.string().refine((value) => !LONE_SURROGATE.test(value), INVALID_UNICODE);

/** Free-form metadata: every key and every string inside it must be valid Unicode, reported at its own path. */
const metadataSchema = z.record(z.string(), z.unknown()).superRefine((metadata, issues) => {
  const visit = (value: unknown, path: PropertyKey[]) => {
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) issues.addIssue({ code: "custom", message: INVALID_UNICODE, path });
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...path, index]);
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) issues.addIssue({ code: "custom", message: `key ${INVALID_UNICODE}`, path });
        else visit(item, [...path, key]);
      }
    }
  };
  visit(metadata, []);
});

const modelsSchema = z.array(text().min(1).max(200)).max(200);
/** `mcp`: server names and namespaced tool patterns (`github__*`, `!github__delete_*`) of the MCP gateway. */
const mcpSchema = z.strictObject({
  servers: z
    .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "an MCP server name"))
    .max(200)
    .optional(),
  tools: z
    .array(z.string().regex(/^!?[A-Za-z0-9_.*-]{1,200}$/, "a tool pattern: letters, digits, '_', '-', '.', '*', an optional leading '!'"))
    .max(200)
    .optional(),
});
/** `guardrails`: rule names of the config's `guardrails`, `!name` to remove a default. */
const guardrailsSchema = z.array(z.string().regex(/^!?[A-Za-z0-9_.-]{1,64}$/, "a guardrail name, with an optional leading '!'")).max(100);
const nameSchema = text().trim().min(1).max(200);
// "." and ".." pass the character class but name no record a URL can reach (a client folds them away).
const idSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '.', '-' and '_' (at most 64)")
  .refine((id) => id !== "." && id !== "..", "'.' and '..' are not ids");

/** `POST /admin/keys`. */
export const createKeySchema = z.strictObject({
  name: nameSchema,
  team: idSchema.optional(),
  user: text().min(1).max(200).optional(),
  models: modelsSchema.optional(),
  limits: limitsSchema.optional(),
  budgets: budgetsSchema.optional(),
  mcp: mcpSchema.optional(),
  guardrails: guardrailsSchema.optional(),
  cache: z.boolean().optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  metadata: metadataSchema.optional(),
});

/** `PATCH /admin/keys/{id}`: the fields given replace the stored ones; a key's team is fixed at creation. */
export const updateKeySchema = createKeySchema.omit({ team: true }).partial();

/** `POST /admin/keys/{id}/rotate`. */
export const rotateKeySchema = z.strictObject({
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional(),
});

/** `POST /admin/teams`. */
export const createTeamSchema = z.strictObject({
  id: idSchema.optional(),
  name: nameSchema,
  models: modelsSchema.optional(),
  limits: limitsSchema.optional(),
  budgets: budgetsSchema.optional(),
  mcp: mcpSchema.optional(),
  guardrails: guardrailsSchema.optional(),
  cache: z.boolean().optional(),
});

export const updateTeamSchema = createTeamSchema.omit({ id: true }).partial();

/** `GET /admin/usage` query. */
export const usageQuerySchema = z.strictObject({
  groupBy: z.enum(["key", "team", "user", "model", "day"]).default("key"),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  format: z.enum(["json", "csv"]).default("json"),
});

/** `GET /admin/audit` query. */
export const auditQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  actor: z.string().min(1).max(200).optional(),
  action: z.string().min(1).max(100).optional(),
  target: z.string().min(1).max(300).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(1_000),
  format: z.enum(["json", "csv"]).default("json"),
});
