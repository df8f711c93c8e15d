import type { RateLimitStore } from "./rate-limit-store.js";
import type { ServerContext } from "./context.js";
import type { ServerFramework } from "./http.js";

/** One allowed origin: an exact origin (`https://app.example`) or a RegExp matched against it. */
export type CORSOriginMatcher = string | RegExp;

/**
 * Decides a request's origin: true/false, or the exact value to send in
 * `Access-Control-Allow-Origin` (a string); may be async.
 */
export type CORSOriginFunction = (
  origin: string,
  ctx: ServerContext,
) => boolean | string | null | undefined | Promise<boolean | string | null | undefined>;

export interface CORSConfig {
  enabled?: boolean;
  /**
   * `"*"` (default: any origin, never with credentials), one origin, a RegExp, a list of
   * both, or a function deciding per request.
   */
  origins?: "*" | CORSOriginMatcher | CORSOriginMatcher[] | CORSOriginFunction;
  methods?: string[];
  /** Headers a preflight may ask for. Default: the ones it asks for (`Access-Control-Request-Headers`, reflected with `Vary`). */
  allowedHeaders?: string[];
  exposedHeaders?: string[];
  /** Sends `Access-Control-Allow-Credentials: true`; refused with `origins: "*"`. */
  credentials?: boolean;
  /** Seconds a preflight may be cached. */
  maxAge?: number;
}

/**
 * Which proxies' `X-Forwarded-For` entries to believe (proxy-addr semantics): `false` (default:
 * the socket peer is the client), a hop count (`1` = one proxy in front; `true` means the same),
 * addresses, CIDRs or the names `loopback`, `linklocal`, `uniquelocal` (a comma list or an
 * array), or a function `(address, hop) => trusted`. The client is the rightmost address
 * not trusted.
 */
export type TrustProxyConfig = boolean | number | string | string[] | ((address: string, hop: number) => boolean);

export interface RateLimitConfig {
  enabled?: boolean;
  maxRequests?: number;
  windowMs?: number;
  message?: string;
  skipPaths?: string[];
  /** @deprecated Use the top-level `trustProxy`; `true` here means `trustProxy: 1` (one proxy in front). */
  trustProxy?: boolean;
  /**
   * What a request gets while the store is down (Redis unreachable): `false` (default) → 503
   * `STORE_UNAVAILABLE` with `Retry-After` (fail closed: this limit sits in front of auth);
   * `true` → served uncounted, with a logged warning.
   */
  failOpen?: boolean;
  /** Where counters live (default in-memory); `RedisRateLimitStore` shares them across processes and with the WebSocket surface. */
  store?: RateLimitStore;
}

export interface BodyParserConfig {
  enabled?: boolean;
  /** Byte limit: a number, or a string such as `"10mb"`. */
  limit?: number | string;
  /** Deepest nesting of arrays and objects accepted in a JSON body (default 64); deeper → 400. */
  maxDepth?: number;
  /**
   * After refusing an unread body (413), how long the rest is still read and discarded before
   * the connection closes, so the client finishes sending and sees the answer (default 5000).
   */
  lingerMs?: number;
  /** At most this many bytes are discarded that way (default `"64mb"`). */
  lingerLimit?: number | string;
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

export interface LoggingConfig {
  enabled?: boolean;
  level?: LogLevel;
  /** Paths never logged (prefix match). */
  skipPaths?: string[];
  /**
   * Query values in request lines: `"redact"` (default) replaces every value and any bare or
   * unusual parameter name (a key pasted as `?sk-…`); `"log"` keeps values except under
   * credential names (`api_key`, `token`, `password`…).
   */
  queryValues?: "redact" | "log";
}

/** Who may read `/api/metrics` (see `metricsScope`). */
export interface MetricsConfig {
  /**
   * Anyone may read the process and HTTP figures; the governance series (per-team spend, tokens,
   * requests) still need an admin credential or the token. Default false: admins and the token only.
   */
  public?: boolean;
  /** A bearer token for scrapers (`Authorization: Bearer <token>`, at least 16 characters): reads everything. */
  token?: string;
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

export interface HealthConfig {
  /**
   * Process details (pid, Node version, memory) in `/health/detailed`: only for an
   * authenticated request (`"authenticated"`, default), always, or never.
   */
  processDetails?: "authenticated" | "always" | "never";
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
  /** Who may read `/api/metrics`: admins, `metrics.token`, and anyone only with `metrics.public: true`. */
  metrics?: MetricsConfig;
  enableSwagger?: boolean;
  disableBuiltInHealth?: boolean;
  redaction?: RedactionConfig;
  shutdown?: ShutdownConfig;
  streaming?: StreamingConfig;
  /** Which proxies to believe for the client address (default false: the socket peer). */
  trustProxy?: TrustProxyConfig;
  health?: HealthConfig;
}

type Complete<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** The configuration with every default applied (deep: nested objects are complete too). */
export interface RequiredServerAdapterConfig {
  port: number;
  host: string;
  basePath: string;
  cors: Complete<Omit<CORSConfig, "allowedHeaders">> & { allowedHeaders: string[] | undefined };
  rateLimit: Complete<Omit<RateLimitConfig, "message" | "store">> & { message: string; store?: RateLimitStore };
  bodyParser: { enabled: boolean; limit: number; maxDepth: number; lingerMs: number; lingerLimit: number };
  logging: Complete<LoggingConfig>;
  timeout: number;
  enableMetrics: boolean;
  metrics: MetricsConfig;
  enableSwagger: boolean;
  disableBuiltInHealth: boolean;
  redaction: Complete<RedactionConfig>;
  shutdown: Complete<ShutdownConfig>;
  streaming: Complete<StreamingConfig>;
  trustProxy: TrustProxyConfig;
  health: Complete<HealthConfig>;
}

export interface CreateServerOptions<TFramework extends ServerFramework = ServerFramework> {
  framework?: TFramework;
  config?: ServerAdapterConfig;
}
