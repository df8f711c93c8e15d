import type { ServerFramework } from "./http.js";

export interface CORSConfig {
  enabled?: boolean;
  /** `"*"` or a list of exact origins. */
  origins?: "*" | string[];
  methods?: string[];
  allowedHeaders?: string[];
  exposedHeaders?: string[];
  credentials?: boolean;
  /** Seconds a preflight may be cached. */
  maxAge?: number;
}

export interface RateLimitConfig {
  enabled?: boolean;
  maxRequests?: number;
  windowMs?: number;
  message?: string;
  skipPaths?: string[];
  /** Trust `X-Forwarded-For` for the client address (only behind a proxy you control). */
  trustProxy?: boolean;
}

export interface BodyParserConfig {
  enabled?: boolean;
  /** Byte limit: a number, or a string such as `"10mb"`. */
  limit?: number | string;
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

export interface LoggingConfig {
  enabled?: boolean;
  level?: LogLevel;
  /** Paths never logged (prefix match). */
  skipPaths?: string[];
}

export interface RedactionConfig {
  enabled?: boolean;
  additionalFields?: string[];
  preserveFields?: string[];
  redactToolArgs?: boolean;
  redactToolResults?: boolean;
  placeholder?: string;
}

export interface ShutdownConfig {
  /** Maximum time for the whole stop. */
  gracefulShutdownTimeoutMs?: number;
  /** Maximum time to let in-flight requests finish. */
  drainTimeoutMs?: number;
  /** Destroy the remaining connections once the drain timeout passes. */
  forceClose?: boolean;
}

export interface StreamingConfig {
  /** Interval of `: keep-alive` comments on idle streams; 0 disables them. */
  keepAliveMs?: number;
}

/** Everything optional; see `RequiredServerAdapterConfig` for the resolved form. */
export interface ServerAdapterConfig {
  port?: number;
  host?: string;
  basePath?: string;
  cors?: CORSConfig;
  rateLimit?: RateLimitConfig;
  bodyParser?: BodyParserConfig;
  logging?: LoggingConfig;
  timeout?: number;
  enableMetrics?: boolean;
  enableSwagger?: boolean;
  disableBuiltInHealth?: boolean;
  redaction?: RedactionConfig;
  shutdown?: ShutdownConfig;
  streaming?: StreamingConfig;
}

type Complete<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** The configuration with every default applied (deep: nested objects are complete too). */
export interface RequiredServerAdapterConfig {
  port: number;
  host: string;
  basePath: string;
  cors: Complete<CORSConfig>;
  rateLimit: Complete<Omit<RateLimitConfig, "message">> & { message: string };
  bodyParser: { enabled: boolean; limit: number };
  logging: Complete<LoggingConfig>;
  timeout: number;
  enableMetrics: boolean;
  enableSwagger: boolean;
  disableBuiltInHealth: boolean;
  redaction: Complete<RedactionConfig>;
  shutdown: Complete<ShutdownConfig>;
  streaming: Complete<StreamingConfig>;
}

export interface CreateServerOptions {
  framework?: ServerFramework;
  config?: ServerAdapterConfig;
}
