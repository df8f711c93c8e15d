import { z } from "zod";
import { SERVER_FRAMEWORKS } from "../contracts/http.js";

const nonNegativeInt = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();
const byteSize = z.union([positiveInt, z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, "expected bytes such as 1048576 or \"10mb\"")]);

/**
 * Validates a `ServerAdapterConfig`. Strict: an unknown key is an error, so typos
 * (`bodyparser`) fail loudly instead of being ignored.
 */
export const serverAdapterConfigSchema = z
  .object({
    port: z.number().int().min(0).max(65_535),
    host: z.string().min(1),
    basePath: z.string().regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, "must start with / (\"\" or \"/\" for none)").or(z.literal("")),
    cors: z
      .object({
        enabled: z.boolean(),
        origins: z.union([z.literal("*"), z.array(z.string().min(1))]),
        methods: z.array(z.string().min(1)),
        allowedHeaders: z.array(z.string().min(1)),
        exposedHeaders: z.array(z.string().min(1)),
        credentials: z.boolean(),
        maxAge: nonNegativeInt,
      })
      .partial()
      .strict(),
    rateLimit: z
      .object({
        enabled: z.boolean(),
        maxRequests: positiveInt,
        windowMs: positiveInt,
        message: z.string(),
        skipPaths: z.array(z.string()),
        trustProxy: z.boolean(),
      })
      .partial()
      .strict(),
    bodyParser: z.object({ enabled: z.boolean(), limit: byteSize }).partial().strict(),
    logging: z
      .object({
        enabled: z.boolean(),
        level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
        skipPaths: z.array(z.string()),
      })
      .partial()
      .strict(),
    timeout: positiveInt,
    enableMetrics: z.boolean(),
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
      .object({ gracefulShutdownTimeoutMs: positiveInt, drainTimeoutMs: nonNegativeInt, forceClose: z.boolean() })
      .partial()
      .strict(),
    streaming: z.object({ keepAliveMs: nonNegativeInt }).partial().strict(),
  })
  .partial()
  .strict();

export const serverFrameworkSchema = z.enum(SERVER_FRAMEWORKS);
