import safeRegex from "safe-regex2";
import { z } from "zod";
import { PII_ENTITIES } from "./detectors/pii.js";
import { SECRET_TYPES } from "./detectors/secrets.js";

/** Checks a user pattern once, at config time: it compiles, and it cannot backtrack catastrophically. */
function checkPattern(pattern: string, context: z.RefinementCtx): void {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    context.addIssue({ code: "custom", message: `not a valid regular expression: ${(error as Error).message}` });
    return;
  }
  if (!safeRegex(pattern))
    context.addIssue({
      code: "custom",
      message:
        "refused: this pattern can backtrack catastrophically (nested or overlapping repetition); rewrite it without a repeated group that repeats",
    });
}

const safePattern = z.string().min(1).superRefine(checkPattern);

const ruleBase = {
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, `_`, `.` or `-` (at most 64), without a leading `!`"),
  on: z.enum(["request", "response", "both"]).default("both"),
  action: z.enum(["block", "mask", "log"]).default("block"),
};

const piiRule = z.strictObject({
  ...ruleBase,
  kind: z.literal("pii"),
  entities: z.array(z.enum(PII_ENTITIES)).min(1).optional(),
});

const secretsRule = z.strictObject({
  ...ruleBase,
  kind: z.literal("secrets"),
  types: z.array(z.enum(SECRET_TYPES)).min(1).optional(),
  /** Matches of these patterns pass (test keys, documented example values). */
  allow: z.array(safePattern).default([]),
});

const regexRule = z.strictObject({
  ...ruleBase,
  kind: z.literal("regex"),
  patterns: z.array(safePattern).min(1),
  mask: z.string().default("[REDACTED]"),
  caseInsensitive: z.boolean().default(false),
});

const webhookRule = z.strictObject({
  ...ruleBase,
  kind: z.literal("webhook"),
  url: z.url({ protocol: /^https?$/ }),
  timeoutMs: z.number().int().positive().max(60_000).default(2000),
  failOpen: z.boolean().default(false),
  headers: z.record(z.string(), z.string()).optional(),
});

const sizeRule = z
  .strictObject({
    ...ruleBase,
    kind: z.literal("size"),
    maxInputTokens: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
  })
  .refine((rule) => rule.maxInputTokens !== undefined || rule.maxOutputTokens !== undefined, {
    message: "a size rule needs maxInputTokens or maxOutputTokens",
  });

export const guardrailRuleSchema = z.discriminatedUnion("kind", [piiRule, secretsRule, regexRule, webhookRule, sizeRule]);

/** The `guardrails` config key. */
export const guardrailsConfigSchema = z
  .strictObject({
    rules: z.array(guardrailRuleSchema).default([]),
    /** Rules applied to every call; keys and teams add to them and remove with `!name`. */
    default: z.array(z.string()).default([]),
    /** How many characters of a streamed answer are held back so a split secret is still caught. */
    window: z.number().int().min(16).max(65_536).default(256),
  })
  .superRefine((config, context) => {
    const names = new Set<string>();
    config.rules.forEach((rule, index) => {
      if (names.has(rule.name))
        context.addIssue({ code: "custom", path: ["rules", index, "name"], message: `rule \`${rule.name}\` is defined twice` });
      names.add(rule.name);
    });
    config.default.forEach((name, index) => {
      if (!names.has(name)) context.addIssue({ code: "custom", path: ["default", index], message: `no rule is named \`${name}\`` });
    });
  });

export type GuardrailRule = z.infer<typeof guardrailRuleSchema>;
export type GuardrailsConfig = z.infer<typeof guardrailsConfigSchema>;
export type GuardrailsConfigInput = z.input<typeof guardrailsConfigSchema>;
export type GuardrailAction = GuardrailRule["action"];
export type GuardrailDirection = "request" | "response";
