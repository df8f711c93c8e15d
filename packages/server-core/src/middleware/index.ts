/**
 * `@conduit-ai/server-core/middleware`: the middleware users install — the default stack's parts
 * and the optional ones — their stores, and the Redis client they share. Building blocks other
 * Conduit packages use live on `@conduit-ai/server-core/internal`.
 */
export { type AbortSignalOptions, createAbortSignalMiddleware } from "./abort-signal.js";
export { type CacheOptions, createCacheMiddleware } from "./cache/cache-middleware.js";
export type { CacheEntry, CacheStore } from "./cache/cache-store.js";
export { MemoryCacheStore } from "./cache/memory-cache-store.js";
export { RedisCacheStore } from "./cache/redis-cache-store.js";
export { type CompressionEncoding, type CompressionOptions, createCompressionMiddleware } from "./compression.js";
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
export { RequestLogger, requestLogger } from "./logging/request-logger.js";
export { MemoryRateLimitStore, type MemoryRateLimitStoreOptions } from "./rate-limit/memory-rate-limit-store.js";
export type { BucketCheck, BucketResult, RateLimitStore, WindowCheck, WindowResult } from "../contracts/rate-limit-store.js";
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from "./rate-limit/redis-rate-limit-store.js";
export { type TokenBucketRateLimitOptions, createTokenBucketRateLimitMiddleware } from "./rate-limit/token-bucket-rate-limit.js";
export {
  type RateLimitOptions,
  type SlidingWindowRateLimitOptions,
  createRateLimitMiddleware,
  createSlidingWindowRateLimitMiddleware,
  rateLimitMiddleware,
} from "./rate-limit/window-rate-limit.js";
export { type RedisClient, type RedisClientOptions, closeRedis, connectRedis, createRedisClient } from "./redis/connect-redis.js";
export {
  type RedisAddress,
  type RedisSettings,
  type RedisTopology,
  describeRedisTopology,
  redisTopologyFrom,
} from "./redis/redis-topology.js";
export { type RequestIdOptions, createRequestIdMiddleware } from "./request-id.js";
export { type SecurityHeadersOptions, createSecurityHeadersMiddleware } from "./security-headers.js";
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
