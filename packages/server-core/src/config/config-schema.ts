import { z } from "zod";
import { builtOnce } from "../core/lifecycle/built-once.js";
import { SERVER_FRAMEWORKS } from "../contracts/http.js";
import type { RateLimitStore } from "../contracts/rate-limit-store.js";

const nonNegativeInt = builtOnce(() => z.number().int().nonnegative());
const positiveInt = builtOnce(() => z.number().int().positive());
const originMatcher = builtOnce(() => z.union([z.string().min(1), z.instanceof(RegExp)]));
const byteSize = builtOnce(() =>
  z.union([positiveInt(), z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'expected bytes such as 1048576 or "10mb"')]),
);

/**
 * Validates a `ServerAdapterConfig`. Strict: an unknown key is an error, so typos
 * (`bodyparser`) fail loudly instead of being ignored.
 */
export const serverAdapterConfigSchema = builtOnce(() =>
  z
    .object({
      port: z.number().int().min(0).max(65_535),
      host: z.string().min(1),
      basePath: z
        .string()
        .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must start with / ("" or "/" for none)')
        .or(z.literal("")),
      cors: z
        .object({
          enabled: z.boolean(),
          origins: z.union([
            originMatcher(),
            z.array(originMatcher()),
            z.custom<(...args: unknown[]) => unknown>((value) => typeof value === "function", "expected a function"),
          ]),
          methods: z.array(z.string().min(1)),
          allowedHeaders: z.array(z.string().min(1)),
          exposedHeaders: z.array(z.string().min(1)),
          credentials: z.boolean(),
          maxAge: nonNegativeInt(),
        })
        .partial()
        .strict()
        .superRefine((cors, context) => {
          // Any site could make credentialed requests: the browser-enforced rule, enforced at startup.
          if (cors.credentials === true && (cors.origins === undefined || cors.origins === "*")) {
            context.addIssue({
              code: "custom",
              path: ["credentials"],
              message: 'credentials: true needs explicit origins (a list, a RegExp or a function), not the default "*"',
            });
          }
        }),
      rateLimit: z
        .object({
          enabled: z.boolean(),
          maxRequests: positiveInt(),
          windowMs: positiveInt(),
          message: z.string(),
          skipPaths: z.array(z.string()),
          trustProxy: z.boolean(),
          failOpen: z.boolean(),
          store: z.custom<RateLimitStore>(
            (value) =>
              typeof (value as { hitWindow?: unknown })?.hitWindow === "function" &&
              typeof (value as { takeToken?: unknown })?.takeToken === "function",
            "expected a RateLimitStore (hitWindow and takeToken)",
          ),
        })
        .partial()
        .strict(),
      bodyParser: z
        .object({
          enabled: z.boolean(),
          limit: byteSize(),
          maxDepth: positiveInt().max(10_000),
          lingerMs: nonNegativeInt(),
          lingerLimit: z.union([nonNegativeInt(), byteSize()]),
        })
        .partial()
        .strict(),
      logging: z
        .object({
          enabled: z.boolean(),
          level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
          skipPaths: z.array(z.string()),
          queryValues: z.enum(["redact", "log"]),
        })
        .partial()
        .strict(),
      timeout: positiveInt(),
      enableMetrics: z.boolean(),
      metrics: z
        .object({
          public: z.boolean(),
          token: z.string().min(16, "at least 16 characters (a scraper's bearer token)").max(4096),
        })
        .partial()
        .strict(),
      enableSwagger: z.boolean(),
      disableBuiltInHealth: z.boolean(),
      redaction: z
        .object({
          enabled: z.boolean(),
          additionalFields: z.array(z.string()),
          preserveFields: z.array(z.string()),
          redactToolArgs: z.boolean(),
          redactToolResults: z.boolean(),
          placeholder: z.string(),
        })
        .partial()
        .strict(),
      shutdown: z
        .object({ gracefulShutdownTimeoutMs: positiveInt(), drainTimeoutMs: nonNegativeInt(), forceClose: z.boolean() })
        .partial()
        .strict(),
      streaming: z.object({ keepAliveMs: nonNegativeInt() }).partial().strict(),
      trustProxy: z.union([
        z.boolean(),
        nonNegativeInt(),
        z.string().min(1),
        z.array(z.string().min(1)),
        z.custom<(address: string, hop: number) => boolean>((value) => typeof value === "function", "expected a function"),
      ]),
      health: z
        .object({ processDetails: z.enum(["authenticated", "always", "never"]) })
        .partial()
        .strict(),
    })
    .partial()
    .strict(),
);

export const serverFrameworkSchema = builtOnce(() => z.enum(SERVER_FRAMEWORKS));
