/**
 * `@conduit-ai/server-core/middleware`: the built-in middleware (the default stack's parts and the
 * optional ones), their stores, and the building blocks a middleware of another package uses.
 */
export { type AbortSignalOptions, ABORT_REASON_STATE_KEY, abortReason, createAbortSignalMiddleware } from "./abort-signal.js";
export { type CacheOptions, createCacheMiddleware } from "./cache/cache-middleware.js";
export type { CacheEntry, CacheStore } from "./cache/cache-store.js";
export { MemoryCacheStore } from "./cache/memory-cache-store.js";
export { RedisCacheStore } from "./cache/redis-cache-store.js";
export { type CompressionEncoding, type CompressionOptions, createCompressionMiddleware, negotiateEncoding } from "./compression.js";
export { type CORSOptions, createCorsMiddleware } from "./cors.js";
export { createDefaultMiddleware } from "./default-stack.js";
export { type DeprecatedRoute, type DeprecationOptions, createDeprecationMiddleware } from "./deprecation.js";
export { type ErrorHandlingOptions, createErrorHandlingMiddleware } from "./error-handling.js";
export {
  DEFAULT_LOG_SKIP_PATHS,
  type LoggingOptions,
  type ServerLoggerOptions,
  createLoggingMiddleware,
  createServerLogger,
} from "./logging/logging.js";
export { REDACTED, redactedUrl } from "./logging/redact.js";
export { REQUEST_LOGGER_STATE_KEY, RequestLogger, requestLogger } from "./logging/request-logger.js";
export { matchesPathPrefix } from "./path-prefix.js";
export { clientKey } from "./rate-limit/client-key.js";
export {
  type CredentialAttempt,
  CredentialFailureGuard,
  type CredentialFailureGuardOptions,
  credentialAccount,
} from "./rate-limit/credential-failures.js";
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from "./rate-limit/memory-rate-limit-store.js";
export type { BucketCheck, BucketResult, RateLimitStore, WindowCheck, WindowResult } from "./rate-limit/rate-limit-store.js";
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from "./rate-limit/redis-rate-limit-store.js";
export { type TokenBucketRateLimitOptions, createTokenBucketRateLimitMiddleware, limitFor } from "./rate-limit/token-bucket-rate-limit.js";
export {
  type RateLimitOptions,
  type SlidingWindowRateLimitOptions,
  createRateLimitMiddleware,
  createSlidingWindowRateLimitMiddleware,
  rateLimitMiddleware,
} from "./rate-limit/window-rate-limit.js";
export {
  type RateLimitInfo,
  type RateLimitOutcome,
  type RateLimiter,
  type RateLimiterOptions,
  createRateLimiter,
  rejectRequest,
  setRateLimitHeaders,
} from "./rate-limit/rate-limiter.js";
export { FAIL_FAST_REDIS_OPTIONS, type RedisConnectionState, type RedisEvalClient, runScript, whenConnected } from "./redis-client.js";
export { type RedisClient, type RedisClientOptions, closeRedis, connectRedis, createRedisClient } from "./redis/connect-redis.js";
export { hashTag, slotPrefix } from "./redis/hash-tag.js";
export { type PingableRedis, pingRedis } from "./redis/ping-redis.js";
export {
  type RedisAddress,
  type RedisSettings,
  type RedisTopology,
  describeRedisTopology,
  redisTopologyFrom,
} from "./redis/redis-topology.js";
export { type RequestIdOptions, SAFE_REQUEST_ID, createRequestIdMiddleware } from "./request-id.js";
export { type SecurityHeadersOptions, createSecurityHeadersMiddleware, servedOverHttps } from "./security-headers.js";
export { type TimingOptions, createTimingMiddleware } from "./timing.js";
export { type RequestSchema, type ValidationOptions, createValidationMiddleware } from "./validation/validation-middleware.js";
export {
  type PropertySchema,
  type PropertyType,
  type SchemaCheck,
  type SchemaValidation,
  type ValidationSchema,
  compileValidationSchema,
  schemaValidator,
  validateWithSchema,
} from "./validation/validation-schema.js";
export { validationSchemas } from "./validation/validation-schemas.js";
// Building blocks for middleware and surfaces of other packages (auth, websocket, proxy, cli).
export { MiddlewareStack } from "../core/middleware-stack.js";
// One bounded LRU/TTL cache for every in-process cache, and the digest a secret is keyed by (issue 25).
export { BoundedCache, type BoundedCacheEntryOptions, type BoundedCacheOptions } from "../core/bounded-cache.js";
export { secretDigest } from "../core/secret-digest.js";
export { type Deadline, DeadlineQueue } from "../core/deadline-queue.js";
export { within } from "../core/within.js";
export { pathMatchesFilter } from "../core/path-pattern.js";
export { isLoopbackAddress } from "../core/client-address.js";
export { DEFAULT_MAX_BODY_DEPTH } from "../core/body-parser.js";
export { jsonDepthExceeds } from "../core/json-depth.js";
// One credential rule (header, cookie, query) for HTTP and the WebSocket upgrade (issue 24).
export { type Extraction, decodeBasicCredential, parseAuthorization, readCookie } from "../core/credentials.js";
export {
  type CredentialRule,
  type CredentialScheme,
  type CredentialSource,
  credentialFromHeader,
  credentialSourceOf,
  defaultCredentialHeader,
  readCredential,
} from "../core/credential-rule.js";
export { callTokenOf, setCallToken } from "../routes/call-token.js";
export { type HealthSource, checkReadiness } from "../routes/health-status.js";
// How `/api` runtime calls ended, for a gatekeeper such as governance (issue 21).
export {
  type RuntimeCallObserver,
  type RuntimeCallOutcome,
  observeRuntimeCall,
  observedCall,
  observedStream,
  reportRuntimeCall,
} from "../core/runtime-call-observer.js";
// Live request feed (issue 22: the operator console's "Live requests").
export {
  type RequestFeedAnnotation,
  type RequestFeedEvent,
  type RequestFeedOptions,
  RequestFeed,
  annotateRequestFeed,
  createRequestFeedMiddleware,
  installRequestFeed,
} from "../core/request-feed.js";
