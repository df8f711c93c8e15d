import bytes from "bytes";
import type { z } from "zod";
import type { RequiredServerAdapterConfig, ServerAdapterConfig } from "../contracts/config.js";
import type { ServerFramework } from "../contracts/http.js";
import { ConfigurationError } from "../errors/server-errors.js";
import { formatZodIssues } from "../errors/zod-issues.js";
import { compileTrustProxy } from "../core/credentials/client-address.js";
import { DEFAULT_SERVER_CONFIG } from "./defaults.js";
import { serverAdapterConfigSchema, serverFrameworkSchema } from "./config-schema.js";
import type { ConfigIssue } from "../errors/server-errors.js";

export type { ConfigIssue };

function toIssues(error: z.ZodError, root: string): ConfigIssue[] {
  return formatZodIssues(error, { ...(root ? { root } : {}), unknownKeys: "joined" }).map(({ field, message }) => ({
    path: field,
    message,
  }));
}

function raise(issues: ConfigIssue[]): never {
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  throw new ConfigurationError(`Invalid server configuration: ${summary}`, { details: { issues } });
}

/** Checks a framework name, raising `ConfigurationError` for anything outside the closed set. */
export function validateFramework(framework: unknown): ServerFramework {
  const parsed = serverFrameworkSchema().safeParse(framework);
  if (!parsed.success) raise(toIssues(parsed.error, "framework"));
  return parsed.data;
}

/**
 * Validates a user config and deep-merges it over the defaults. Every problem is
 * reported at once, named by path (`rateLimit.maxRequests: ...`).
 *
 * @example
 * resolveConfig({ port: 8080, rateLimit: { maxRequests: 10 } }).rateLimit.windowMs; // 900000, kept from defaults
 */
export function resolveConfig(config: ServerAdapterConfig = {}): RequiredServerAdapterConfig {
  const parsed = serverAdapterConfigSchema().safeParse(config);
  if (!parsed.success) raise(toIssues(parsed.error, ""));
  const user = parsed.data as ServerAdapterConfig;
  const defaults = structuredClone(DEFAULT_SERVER_CONFIG);
  // The legacy `rateLimit.trustProxy: true` meant "a proxy I control is in front": one hop.
  const trustProxy = user.trustProxy ?? (user.rateLimit?.trustProxy === true ? 1 : defaults.trustProxy);
  try {
    compileTrustProxy(trustProxy);
  } catch (error) {
    raise([{ path: "trustProxy", message: (error as Error).message }]);
  }
  return {
    ...defaults,
    ...withoutObjects(user as Record<string, unknown>),
    basePath: normalizeBasePath(user.basePath ?? defaults.basePath),
    cors: { ...defaults.cors, ...user.cors } as RequiredServerAdapterConfig["cors"],
    rateLimit: { ...defaults.rateLimit, ...user.rateLimit },
    bodyParser: {
      ...defaults.bodyParser,
      ...user.bodyParser,
      limit: byteCount(user.bodyParser?.limit ?? defaults.bodyParser.limit),
      lingerLimit: byteCount(user.bodyParser?.lingerLimit ?? defaults.bodyParser.lingerLimit),
    },
    logging: { ...defaults.logging, ...user.logging },
    redaction: { ...defaults.redaction, ...user.redaction },
    shutdown: { ...defaults.shutdown, ...user.shutdown },
    streaming: { ...defaults.streaming, ...user.streaming },
    health: { ...defaults.health, ...user.health },
    metrics: { ...defaults.metrics, ...user.metrics },
    trustProxy,
  };
}

function byteCount(value: number | string): number {
  return typeof value === "number" ? value : (bytes.parse(value) ?? 0);
}

/** Top-level scalars; objects are merged one by one above, functions (`trustProxy`) set explicitly. */
function withoutObjects(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => typeof value !== "object" && typeof value !== "function"));
}

/** `"/api/"` → `"/api"`, `"/"` → `""`. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}
