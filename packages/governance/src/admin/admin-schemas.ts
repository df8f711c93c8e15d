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

const modelsSchema = z.array(z.string().min(1).max(200)).max(200);
const nameSchema = z.string().trim().min(1).max(200);
const idSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '.', '-' and '_' (at most 64)");

/** `POST /admin/keys`. */
export const createKeySchema = z.strictObject({
  name: nameSchema,
  team: idSchema.optional(),
  user: z.string().min(1).max(200).optional(),
  models: modelsSchema.optional(),
  limits: limitsSchema.optional(),
  budgets: budgetsSchema.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
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
});

export const updateTeamSchema = createTeamSchema.omit({ id: true }).partial();

/** `GET /admin/usage` query. */
export const usageQuerySchema = z.strictObject({
  groupBy: z.enum(["key", "team", "user", "model", "day"]).default("key"),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  format: z.enum(["json", "csv"]).default("json"),
});
