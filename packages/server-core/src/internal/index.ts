/**
 * `@conduit-ai/server-core/internal`: the building blocks Conduit's own packages (auth,
 * governance, proxy, console, cli, websocket, …) share — the middleware stack, bounded caches,
 * credential parsing, Redis plumbing, the runtime call observer, the request feed. It is for
 * Conduit's packages only and carries NO semver promise: anything here may change in any release.
 * Applications use the main entry and `./middleware`.
 */
export { abortReason } from "../middleware/abort-signal.js";
export { negotiateEncoding } from "../middleware/compression.js";
export { REDACTED, redactedUrl } from "../middleware/logging/redact.js";
export { matchesPathPrefix } from "../middleware/path-prefix.js";
export { clientKey } from "../middleware/rate-limit/client-key.js";
export {
  type CredentialAttempt,
  CredentialFailureGuard,
  type CredentialFailureGuardOptions,
  credentialAccount,
} from "../middleware/rate-limit/credential-failures.js";
export { limitFor } from "../middleware/rate-limit/token-bucket-rate-limit.js";
export {
  type RateLimitInfo,
  type RateLimitOutcome,
  type RateLimiter,
  type RateLimiterOptions,
  createRateLimiter,
  rejectRequest,
  setRateLimitHeaders,
} from "../middleware/rate-limit/rate-limiter.js";
export {
  FAIL_FAST_REDIS_OPTIONS,
  type RedisConnectionState,
  type RedisEvalClient,
  runScript,
  whenConnected,
} from "../middleware/redis-client.js";
export { hashTag, slotPrefix } from "../middleware/redis/hash-tag.js";
export { type PingableRedis, pingRedis } from "../middleware/redis/ping-redis.js";
export { SAFE_REQUEST_ID } from "../middleware/request-id.js";
export { servedOverHttps } from "../middleware/security-headers.js";
export { MiddlewareStack } from "../core/pipeline/middleware-stack.js";
// One bounded LRU/TTL cache for every in-process cache, and the digest a secret is keyed by.
export { BoundedCache, type BoundedCacheEntryOptions, type BoundedCacheOptions } from "../core/cache/bounded-cache.js";
export { constantTimeEquals, digestsEqual, secretDigest, secretDigestBytes } from "../core/credentials/secret-digest.js";
export { type Deadline, DeadlineQueue } from "../core/pipeline/deadline-queue.js";
export { within } from "../core/pipeline/within.js";
export { pathMatchesFilter } from "../core/pipeline/path-pattern.js";
export { isLoopbackAddress } from "../core/credentials/client-address.js";
export { DEFAULT_MAX_BODY_DEPTH } from "../core/body/body-parser.js";
export { jsonDepthExceeds } from "../core/body/json-depth.js";
// One credential rule (header, cookie, query) for HTTP and the WebSocket upgrade.
export { type Extraction, decodeBasicCredential, parseAuthorization, parseBearer, readCookie } from "../core/credentials/credentials.js";
export {
  type CredentialRule,
  type CredentialScheme,
  type CredentialSource,
  credentialFromHeader,
  credentialSourceOf,
  defaultCredentialHeader,
  readCredential,
} from "../core/credentials/credential-rule.js";
export { callTokenOf, setCallToken } from "../routes/call-token.js";
export { mcpTraceHeaders } from "../contracts/mcp-trace-context.js";
export { type HealthSource, checkReadiness } from "../routes/health-status.js";
// The runtime a request's routes call, through a gatekeeper's adapter such as governance's.
export { type RuntimeWrapper, requestRuntime, wrapRequestRuntime } from "../core/pipeline/request-runtime.js";
// The live request feed (the operator console's "Live requests").
export {
  type RequestFeedAnnotation,
  type RequestFeedEvent,
  type RequestFeedOptions,
  RequestFeed,
  annotateRequestFeed,
  createRequestFeedMiddleware,
  installRequestFeed,
  requestFeedOf,
} from "../core/pipeline/request-feed.js";
export {
  callGuardrailHitsOf,
  guardrailHitLabel,
  guardrailHitsOf,
  recordCallGuardrailHits,
  recordGuardrailHits,
} from "../core/pipeline/guardrail-hits.js";
export { CHARACTERS_PER_TOKEN, estimateTokens } from "../pricing/token-estimate.js";
