import { ConfigurationError, formatZodIssues, summarizeIssues } from "@conduit-ai/server-core";
import { tokenPriceSchema } from "@conduit-ai/server-core/pricing";
import { z } from "zod";
import { branchIssues, configIssueMessage } from "./config-issues.js";

/** Which vendor API an account talks to; the pool's selection and cooldowns are shared by both. */
export const vendorSchema = z.enum(["anthropic", "codex"]);
export type Vendor = z.infer<typeof vendorSchema>;

const accountBase = {
  id: z.string().min(1).max(128),
  vendor: vendorSchema.default("anthropic"),
  /** Lower is chosen first by `fill-first` (ties: config order). */
  priority: z.number().int().default(0),
  /** Requests this process sends on the account at once; more wait for another account. */
  maxInFlight: z.number().int().positive().default(16),
  /** Codex: the `chatgpt-account-id` header value. */
  accountId: z.string().optional(),
};

export const apiKeyAccountSchema = z.object({ ...accountBase, type: z.literal("api-key"), apiKey: z.string().min(1) }).strict();

export const oauthAccountSchema = z
  .object({
    ...accountBase,
    type: z.literal("oauth"),
    accessToken: z.string().min(1),
    refreshToken: z.string().min(1),
    /** Epoch milliseconds. */
    expiresAt: z.number().int().nonnegative(),
    tokenUrl: z.url(),
    /** Sent as `client_id` with the refresh grant when set. */
    clientId: z.string().optional(),
  })
  .strict();

export const accountConfigSchema = z.discriminatedUnion("type", [apiKeyAccountSchema, oauthAccountSchema]);
export type AccountConfig = z.infer<typeof accountConfigSchema>;
export type ApiKeyAccountConfig = z.infer<typeof apiKeyAccountSchema>;
export type OAuthAccountConfig = z.infer<typeof oauthAccountSchema>;

/** How a routing name with several deployments picks the one a call tries first. */
export const ROUTING_STRATEGIES = ["priority", "weighted", "least-busy", "latency", "cost"] as const;

/** One deployment of a routing name: `"<provider>/<model>"`, or with its share under `weighted`. */
const deploymentSchema = z.union([
  z.string().min(1),
  z
    .object({
      target: z.string().min(1),
      weight: z.number().positive().max(1_000_000).default(1),
    })
    .strict(),
]);

/**
 * One public model name of the `models` table: a target, a target with ordered fallbacks, or
 * deployments spread by a strategy. A target is `anthropic/<model>` (through the pool),
 * `<provider>/<model>` of the runtime, or a bare provider name (that provider's default model).
 */
export const modelRouteSchema = z.union([
  z.string().min(1),
  z
    .object({
      target: z.string().min(1),
      /** Tried in order when the target answers 429 or 5xx, or every pool account is cooling. */
      fallbacks: z.array(z.string().min(1)).default([]),
    })
    .strict(),
  z
    .object({
      targets: z.array(deploymentSchema).min(1),
      /** Which deployment a call tries first; the others follow, then `fallbacks`. */
      strategy: z.enum(ROUTING_STRATEGIES).default("priority"),
      fallbacks: z.array(z.string().min(1)).default([]),
    })
    .strict(),
]);
export type ModelRouteInput = z.input<typeof modelRouteSchema>;
export type ModelRoute = z.output<typeof modelRouteSchema>;

/** Dollars per million tokens (and per use), as the top-level `prices` key takes them. */
export const modelPriceSchema = tokenPriceSchema;
export type ModelPrice = z.infer<typeof modelPriceSchema>;

export const proxyConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    upstream: z
      .object({
        anthropic: z.url().default("https://api.anthropic.com"),
        openai: z.url().default("https://api.openai.com"),
        codex: z.url().default("https://chatgpt.com"),
      })
      .strict()
      .prefault({}),
    strategy: z.enum(["fill-first", "round-robin"]).default("fill-first"),
    accounts: z.array(accountConfigSchema).default([]),
    /** Keys clients present (`x-api-key` or `Authorization: Bearer`); none → only the server's own auth admits. */
    clientKeys: z.array(z.string().min(16)).default([]),
    store: z.enum(["memory", "redis"]).default("memory"),
    /** Per model id (or id prefix); merged over the defaults. */
    prices: z.record(z.string(), modelPriceSchema).default({}),
    /** Header naming a sticky session (else the request's `metadata.user_id`). */
    sessionHeader: z.string().default("x-conduit-session"),
    /** How long a session keeps its account after its last request. */
    stickyTtlMs: z
      .number()
      .int()
      .positive()
      .default(60 * 60 * 1000),
    /** 529/5xx retries on the same account before moving on. */
    maxRetries: z.number().int().nonnegative().max(10).default(2),
    retryBaseMs: z.number().int().nonnegative().default(250),
    /**
     * Time allowed until upstream's answer starts, instead of the server's `timeout`: a
     * non-streaming answer only starts once the model finished (the SDKs wait 10 minutes).
     */
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60 * 1000),
    /**
     * Model routing: public name → a target (`anthropic/<model>` through the pool, `<provider>/<model>`
     * of the runtime, or a bare provider name for its default model), or `{ target, fallbacks }` tried
     * in order on 429, 5xx or every account cooling. Answers name what served them in `x-conduit-model`.
     */
    models: z.record(z.string().min(1), modelRouteSchema).default({}),
    /** Leave out request parameters a target model cannot honour instead of a 400 naming them. */
    dropParams: z.boolean().default(false),
    /**
     * Requests per client credential (a digest of the key, or the server user), instead of the
     * server's per-address limit: an agent session makes hundreds of calls from one address.
     * Shared through Redis with `store: "redis"`; a failing store answers 503 (fail closed).
     */
    rateLimit: z
      .object({
        enabled: z.boolean().default(true),
        maxRequests: z.number().int().positive().default(1000),
        windowMs: z.number().int().positive().default(60_000),
      })
      .strict()
      .prefault({}),
    /**
     * The exact response cache (opt-in): the same normalized request of the same team (or key
     * without a team) within `ttlSeconds` gets the stored answer, JSON or the same stream of
     * events, with `x-conduit-cache: hit|miss`; `x-conduit-cache: off` on a request bypasses it.
     */
    cache: z
      .object({
        store: z.enum(["memory", "redis"]).default("memory"),
        ttlSeconds: z.number().int().positive().max(86_400).default(300),
        /** An answer larger than this is served but never stored. */
        maxEntryBytes: z
          .number()
          .int()
          .positive()
          .max(64 * 1024 * 1024)
          .default(1024 * 1024),
        /** Entries kept at most (the least recently stored go first). */
        maxEntries: z.number().int().positive().max(1_000_000).default(1000),
      })
      .strict()
      .optional(),
    /** Model of the tiny request `GET /limits` sends per account to read live quota headers. */
    probeModel: z.string().default("claude-3-5-haiku-latest"),
  })
  .strict()
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.accounts.forEach((account, index) => {
      if (seen.has(account.id))
        ctx.addIssue({ code: "custom", path: ["accounts", index, "id"], message: `duplicate account id ${account.id}` });
      seen.add(account.id);
    });
  });

/** The config as written (defaults optional). */
export type ProxyConfigInput = z.input<typeof proxyConfigSchema>;
/** The config with every default filled. */
export type ProxyConfig = z.output<typeof proxyConfigSchema>;

/**
 * Validates a `proxy` config section. Errors name the path only: account secrets never
 * appear in a message.
 */
export function parseProxyConfig(input: unknown): ProxyConfig {
  const result = proxyConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const formatted = formatZodIssues(branchIssues(result.error.issues), {
    root: "proxy",
    message: (issue) => configIssueMessage(issue as z.core.$ZodIssue),
  });
  const issues = formatted.map(({ field, message }) => ({ key: field, message }));
  const first = issues[0];
  throw new ConfigurationError(`Invalid proxy config: ${summarizeIssues(formatted)}`, {
    details: { key: first?.key, issues },
  });
}
